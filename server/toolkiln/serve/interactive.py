"""How an interactive script's questions (runner/interactive.py) reach the client.

- A 2025 connection that can send requests: each question is sent now, as an
  elicitation, sampling or roots request tied to the call, and the answer goes
  straight back to the waiting script.
- A 2026-07-28 connection, where the server cannot send requests: the call runs on
  in the background (`ParkedCalls`), the client gets an input-required result whose
  `requestState` names the waiting call, and when it calls again with the answers
  (`inputResponses`) the same script gets them and goes on. The SDK's
  `RequestStateBoundary` seals the state and binds it to the tool and arguments, so
  a tampered or replayed state is refused before it reaches toolkiln.
- A client without the capability a question needs, or a 2025 client served by
  `--stateless` HTTP (where no answer could come back): the script is told so in
  its answer (`{"error": ...}`), and decides what to do. On 2026-07-28, when no
  request of a question can be asked at all, the call stops with the spec's
  missing-capability error (-32021) instead.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import anyio
import mcp.types as types
from anyio.abc import TaskGroup, TaskStatus
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import MISSING_REQUIRED_CLIENT_CAPABILITY
from pydantic import TypeAdapter

from toolkiln.runner import LoggingObserver, ToolResult

logger = logging.getLogger(__name__)

_REQUEST = TypeAdapter[types.InputRequest](types.InputRequest)
_RESULTS: dict[str, tuple[str, type[types.Result]]] = {
    "elicitation/create": ("elicitation", types.ElicitResult),
    "sampling/createMessage": ("sampling", types.CreateMessageResult),
    "roots/list": ("roots", types.ListRootsResult),
}


async def ask_client_now(
    ctx: ServerRequestContext[Any], requests: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """Send each request to the client, on the call's stream; a result (or error) per key."""
    return {key: await _ask_one(ctx, request) for key, request in requests.items()}


def refusal(capabilities: types.ClientCapabilities | None, method: str) -> dict[str, Any] | None:
    """The answer to a request the client declared no capability for; None if it did."""
    capability = _RESULTS[method][0]
    if capabilities is None or getattr(capabilities, capability) is None:
        return {"error": f"the client does not support {capability} ({method})"}
    return None


async def _ask_one(ctx: ServerRequestContext[Any], request: dict[str, Any]) -> dict[str, Any]:
    method = request["method"]
    if not ctx.session.can_send_request:  # stateless HTTP: the client's answer could not come back
        return {"error": f"the server cannot send {method} to this client (stateless HTTP)"}
    refused = refusal(ctx.session.client_capabilities, method)
    if refused is not None:
        return refused
    try:
        typed = typed_request(request)
        result = await ctx.session.send_request(
            typed, _RESULTS[method][1], metadata=ServerMessageMetadata(related_request_id=ctx.request_id)
        )
    except MCPError as error:
        return {"error": f"the client refused {method}: {error.error.message}"}
    except ValueError as error:  # pydantic: the script's request (or the client's answer) is malformed
        return {"error": f"{method} is malformed: {error}"}
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


def typed_request(request: dict[str, Any]) -> types.InputRequest:
    """A script's request as the SDK's type; `ValueError` when it is malformed."""
    return _REQUEST.validate_python({"method": request["method"], "params": request.get("params") or {}})


def missing_capability_error(requests: Iterable[dict[str, Any]]) -> MCPError:
    """The spec's -32021 for questions that this client declared no capability to answer."""
    needed = sorted({_RESULTS[request["method"]][0] for request in requests})
    required = types.ClientCapabilities.model_validate({name: {} for name in needed})
    return MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=f"The tool needs the client to support {' and '.join(needed)}, not declared.",
        data=types.MissingRequiredClientCapabilityErrorData(required_capabilities=required).model_dump(
            by_alias=True, mode="json", exclude_none=True
        ),
    )


def _as_json(response: Any) -> Any:
    if isinstance(response, types.Result):
        return response.model_dump(by_alias=True, mode="json", exclude_none=True)
    return response


class _WaitingCall(LoggingObserver):
    """One interactive call running in the background, between rounds of questions. As
    its observer, it sends logs and progress to the server log (LoggingObserver's): the
    request that would carry them to the client has already been answered."""

    def __init__(self, capabilities: types.ClientCapabilities | None, given: dict[str, Any] | None) -> None:
        # What the call did next: ("input", None) when it asks (`requests`), ("missing",
        # the requests) when it asks only what the client cannot answer, ("done", ToolResult).
        self.events_in, self.events = anyio.create_memory_object_stream[tuple[str, Any]](1)
        self.capabilities = capabilities  # of the client's latest request
        self.given = dict(given or {})  # inputResponses sent with the first call: answers in advance
        self.requests: dict[str, types.InputRequest] = {}
        self._refused: dict[str, Any] = {}
        self._answers: dict[str, Any] = {}
        self._answered = anyio.Event()
        self.scope = anyio.CancelScope()  # the call's, to stop it when it cannot go on

    async def on_input(self, tool: str, requests: dict[str, dict[str, Any]]) -> dict[str, Any]:
        refused = {key: refusal(self.capabilities, request["method"]) for key, request in requests.items()}
        self._refused = {key: answer for key, answer in refused.items() if answer is not None}
        try:
            self.requests = {key: typed_request(r) for key, r in requests.items() if key not in self._refused}
        except ValueError as error:  # pydantic's: the script's request is malformed
            return {key: {"error": f"malformed request: {error}"} for key in requests}
        if self.requests and self.given.keys() >= self.requests.keys():  # answered in advance
            answers = {key: _as_json(self.given.pop(key)) for key in self.requests}
            return {**self._refused, **answers}
        if not self.requests:  # nothing can be asked, and the script waits: the call cannot go on
            await self.events_in.send(("missing", list(requests.values())))
            await anyio.sleep_forever()  # until the server stops this call
        self._answered = anyio.Event()
        await self.events_in.send(("input", None))
        await self._answered.wait()
        return {**self._refused, **self._answers}

    def answer(self, responses: dict[str, Any]) -> None:
        self._answers = {key: _as_json(responses[key]) for key in self.requests}
        self._answered.set()


class ParkedCalls:
    """Interactive calls of 2026-07-28 clients, parked between an input-required result
    and the call that brings the answers. They run in `run`'s task group, so stopping
    the server stops their processes.

    A client may never come back. A parked call still holds a process and a slot of
    `--max-concurrency`, so at most `max_waiting` wait at once: parking one more stops
    the one that has waited longest (and each stops at its tool's timeout anyway).
    """

    def __init__(self, max_waiting: int) -> None:
        self.max_waiting = max_waiting
        self._group: TaskGroup | None = None
        self._waiting: dict[str, _WaitingCall] = {}  # by state, oldest first

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        async with anyio.create_task_group() as group:
            self._group = group
            task_status.started()
            await anyio.sleep_forever()

    async def start(
        self,
        call: Callable[[Any], Awaitable[ToolResult]],
        capabilities: types.ClientCapabilities | None,
        given: dict[str, Any] | None = None,
    ) -> ToolResult | types.InputRequiredResult:
        """Run `call(observer)` in the background: its result, or its first questions.
        `given` (inputResponses without a requestState) answers the questions it has keys for."""
        if self._group is None:
            raise MCPError(code=types.INTERNAL_ERROR, message="interactive calls are not being served")
        waiting = _WaitingCall(capabilities, given)

        async def in_background() -> None:
            async with waiting.events_in:
                with waiting.scope:
                    await waiting.events_in.send(("done", await call(waiting)))
            for state in [state for state, parked in self._waiting.items() if parked is waiting]:
                del self._waiting[state]  # ended (timed out) while waiting for an answer
                waiting.events.close()

        self._group.start_soon(in_background)
        return await self._next(waiting)

    def is_waiting(self, state: str) -> bool:
        return state in self._waiting

    async def resume(
        self, state: str, responses: dict[str, Any] | None, capabilities: types.ClientCapabilities | None
    ) -> ToolResult | types.InputRequiredResult:
        waiting = self._waiting.pop(state, None)
        if waiting is None:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message="This call is no longer waiting for input (it ended or timed out); call it again.",
            )
        if not (responses or {}).keys() >= waiting.requests.keys():  # ask again for what is missing
            return self._park(waiting)
        waiting.capabilities = capabilities
        waiting.answer(responses or {})
        return await self._next(waiting)

    async def _next(self, waiting: _WaitingCall) -> ToolResult | types.InputRequiredResult:
        try:
            kind, value = await waiting.events.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            return ToolResult(text="The call ended without a result; see the server log.", is_error=True)
        if kind == "input":
            return self._park(waiting)
        waiting.events.close()
        if kind == "missing":
            waiting.scope.cancel()
            raise missing_capability_error(value)
        result: ToolResult = value
        return result

    def _park(self, waiting: _WaitingCall) -> types.InputRequiredResult:
        state = secrets.token_urlsafe(16)
        self._waiting[state] = waiting
        while len(self._waiting) > self.max_waiting:
            oldest = self._waiting.pop(next(iter(self._waiting)))
            logger.warning("stopped a call that waited for a client's answers too long behind newer ones")
            oldest.scope.cancel()
        return types.InputRequiredResult(input_requests=dict(waiting.requests), request_state=state)
