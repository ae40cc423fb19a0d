"""The trace context of a request and of a script.

A request's parent is the W3C trace context in its `params._meta` (`traceparent`,
`tracestate`, `baggage`: SEP-414), as the MCP semantic conventions ask; an HTTP
request's own `traceparent` header (a proxy's, or the client's HTTP library's) is a
link, not the parent. A script gets its process span's `traceparent` as `TRACEPARENT`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opentelemetry import propagate, trace
from opentelemetry.context import Context
from opentelemetry.trace import Link, Span
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

_CARRIED = ("traceparent", "tracestate", "baggage")


def parent_of(meta: Mapping[str, Any] | None) -> Context | None:
    """The context `_meta` carries; None when it carries no valid `traceparent`."""
    if not meta or not isinstance(meta.get("traceparent"), str):
        return None
    carrier = {key: meta[key] for key in _CARRIED if isinstance(meta.get(key), str)}
    return _valid(propagate.extract(carrier))


def http_links(headers: Mapping[str, str] | None, parent: Context | None) -> list[Link]:
    """A link to the HTTP request's own trace context, when it has one that is not the parent."""
    if headers is None or not headers.get("traceparent"):
        return []
    context = _valid(propagate.extract({"traceparent": headers["traceparent"], **_state(headers)}))
    if context is None:
        return []
    linked = trace.get_current_span(context).get_span_context()
    if parent is not None and trace.get_current_span(parent).get_span_context() == linked:
        return []
    return [Link(linked, {"toolkiln.link": "http.request"})]


def script_context(span: Span) -> dict[str, str]:
    """The `traceparent` naming `span`: what a script gets as TRACEPARENT (its tracestate
    and baggage, which a client writes, stay in the server: runner/environment.py)."""
    carrier: dict[str, str] = {}
    TraceContextTextMapPropagator().inject(carrier, context=trace.set_span_in_context(span))
    return {"traceparent": carrier["traceparent"]} if "traceparent" in carrier else {}


def _state(headers: Mapping[str, str]) -> dict[str, str]:
    state = headers.get("tracestate")
    return {"tracestate": state} if state else {}


def _valid(context: Context) -> Context | None:
    return context if trace.get_current_span(context).get_span_context().is_valid else None
