"""The span and the duration of every MCP request, as the OpenTelemetry semantic
conventions for MCP name them (semantic-conventions-genai `docs/gen-ai/mcp.md`).

It takes the place of the mcp SDK's own `OpenTelemetryMiddleware` when telemetry is on
(the SDK's span has neither `mcp.session.id` nor `network.transport`, nor a link to the
HTTP request's context), so a request has one span, not two. A span is named
`{mcp.method.name} {target}` (the tool or prompt name); its parent is the trace context
of `params._meta`; a tools/call sets the call's `ToolWatch` (toolkiln/telemetry/watch.py)
for the runner, whose process span is its child.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, TextContent
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, StatusCode
from pydantic import ValidationError

from toolkiln.runner.call_watch import CALL_WATCH
from toolkiln.telemetry.context import http_links, parent_of
from toolkiln.telemetry.setup import Telemetry

SDK_MIDDLEWARE = "OpenTelemetryMiddleware"
# Attributes of a request that also label its duration (bounded: never ids or arguments).
_METRIC_KEYS = (
    "mcp.method.name",
    "gen_ai.tool.name",
    "gen_ai.prompt.name",
    "mcp.protocol.version",
    "network.transport",
    "error.type",
)
_UNNAMED_KEYS = tuple(key for key in _METRIC_KEYS if key not in ("gen_ai.tool.name", "gen_ai.prompt.name"))


class TelemetryMiddleware(ServerMiddleware[Any]):
    """Spans (when tracing is on) and `mcp.server.operation.duration` (when metrics are)."""

    def __init__(
        self,
        telemetry: Telemetry,
        secret_names: Callable[[str], Iterable[str]],
        is_known: Callable[[str, str], bool],
    ) -> None:
        self.telemetry = telemetry
        self.secret_names = secret_names  # a tool's secret parameters, redacted whatever they hold
        self.is_known = is_known  # (method, name): a tool or prompt of the catalog

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        attributes = request_attributes(ctx)
        known = _is_target_known(attributes, self.is_known)
        started = time.perf_counter()
        tracer = self.telemetry.tracer
        watch = self.telemetry.watch() if ctx.method == "tools/call" else None
        token = CALL_WATCH.set(watch) if watch is not None else None
        try:
            if tracer is None:
                return await self._handle(ctx, call_next, attributes, None)
            parent = parent_of(ctx.meta)
            headers = ctx.request.headers if ctx.request is not None else None
            span = tracer.start_span(
                span_name(ctx.method, attributes if known else {}),
                context=parent,
                kind=SpanKind.SERVER,
                attributes=attributes,
                links=http_links(headers, parent),
            )
            with trace.use_span(
                span, end_on_exit=True, record_exception=False, set_status_on_exception=False
            ):
                return await self._handle(ctx, call_next, attributes, span)
        finally:
            if token is not None:
                CALL_WATCH.reset(token)
            if self.telemetry.instruments is not None:
                # A name the catalog does not have is a client's text: never a label (unbounded series).
                keys = _METRIC_KEYS if known else _UNNAMED_KEYS
                labels = {key: attributes[key] for key in keys if key in attributes}
                self.telemetry.instruments.operation(time.perf_counter() - started, labels)

    async def _handle(
        self,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
        attributes: dict[str, Any],
        span: Span | None,
    ) -> HandlerResult:
        if span is not None and self.telemetry.redactor is not None and ctx.method == "tools/call":
            self._record_arguments(span, ctx.params or {})
        try:
            result = await call_next(ctx)
        except MCPError as error:
            _fail(span, attributes, str(error.error.code), error.error.message)
            raise
        except ValidationError:  # the SDK answers -32602; pydantic's message carries client input
            _fail(span, attributes, str(INVALID_PARAMS), "Invalid request parameters")
            raise
        except anyio.get_cancelled_exc_class():  # the client cancelled, or went away
            _fail(span, attributes, "cancelled", None)
            raise
        except Exception as error:
            _fail(span, attributes, type(error).__qualname__, str(error))
            raise
        if ctx.method == "tools/call" and is_tool_error(result):
            _fail(span, attributes, "tool_error", None)
        if span is not None and self.telemetry.redactor is not None and ctx.method == "tools/call":
            self._record_result(span, result)
        return result

    def _record_arguments(self, span: Span, params: Mapping[str, Any]) -> None:
        assert self.telemetry.redactor is not None
        arguments = params.get("arguments")
        if isinstance(arguments, Mapping):
            name = params.get("name")
            secrets = self.secret_names(name) if isinstance(name, str) else ()
            cleaned = self.telemetry.redactor.redact(arguments, secrets)
            span.set_attribute("gen_ai.tool.call.arguments", json.dumps(cleaned, ensure_ascii=False))

    def _record_result(self, span: Span, result: Any) -> None:
        assert self.telemetry.redactor is not None
        if isinstance(result, CallToolResult):
            texts = [item.text for item in result.content if isinstance(item, TextContent)]
        elif isinstance(result, Mapping) and isinstance(result.get("content"), list):  # in wire form
            texts = [str(item.get("text")) for item in result["content"] if isinstance(item, Mapping)]
            texts = [text for text in texts if text != "None"]
        else:  # a task's: its result is the task's, later
            return
        span.set_attribute("gen_ai.tool.call.result", self.telemetry.redactor.clean_text("\n".join(texts)))


def request_attributes(ctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
    """The conventions' attributes of a request (those known before it runs)."""
    attributes: dict[str, Any] = {"mcp.method.name": ctx.method}
    if ctx.protocol_version:
        attributes["mcp.protocol.version"] = ctx.protocol_version
    if ctx.request_id is not None:
        attributes["jsonrpc.request.id"] = str(ctx.request_id)
    name = ctx.params.get("name") if ctx.params else None
    if ctx.method == "tools/call":
        attributes["gen_ai.operation.name"] = "execute_tool"
        if isinstance(name, str):
            attributes["gen_ai.tool.name"] = name
    elif ctx.method == "prompts/get" and isinstance(name, str):
        attributes["gen_ai.prompt.name"] = name
    elif ctx.method in ("resources/read", "resources/subscribe", "resources/unsubscribe") and ctx.params:
        uri = ctx.params.get("uri")
        if isinstance(uri, str):
            attributes["mcp.resource.uri"] = uri
    if ctx.request is None:  # stdio: the conventions' `pipe`
        attributes["network.transport"] = "pipe"
    else:
        attributes["network.transport"] = "tcp"
        attributes["network.protocol.name"] = "http"
        session = ctx.request.headers.get("mcp-session-id")  # the handshake era's, over HTTP
        if session:
            attributes["mcp.session.id"] = session
    return attributes


def _is_target_known(attributes: Mapping[str, Any], is_known: Callable[[str, str], bool]) -> bool:
    name = attributes.get("gen_ai.tool.name") or attributes.get("gen_ai.prompt.name")
    return name is None or is_known(attributes["mcp.method.name"], name)


def span_name(method: str, attributes: Mapping[str, Any]) -> str:
    target = attributes.get("gen_ai.tool.name") or attributes.get("gen_ai.prompt.name")
    return f"{method} {target}" if target else method


def is_tool_error(result: Any) -> bool:
    match result:
        case CallToolResult(is_error=True) | {"isError": True}:
            return True
    return False


def replace_sdk_middleware(middleware: list[Any], ours: TelemetryMiddleware) -> None:
    """`ours` first, in place of the SDK's own span middleware."""
    middleware[:] = [ours, *(each for each in middleware if type(each).__name__ != SDK_MIDDLEWARE)]


def _fail(span: Span | None, attributes: dict[str, Any], error_type: str, message: str | None) -> None:
    attributes["error.type"] = error_type
    if span is None:
        return
    span.set_attribute("error.type", error_type)
    if error_type.lstrip("-").isdigit():
        span.set_attribute("rpc.response.status_code", error_type)
    span.set_status(StatusCode.ERROR, message)
