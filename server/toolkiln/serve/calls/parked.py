"""Interactive calls of 2026-07-28 clients, parked between rounds of questions.

The server cannot send a 2026-07-28 client a request, so an interactive call runs on in
the background: the client gets an input-required result whose `requestState` names
the waiting call, and when it calls again with the answers (`inputResponses`) the same
script gets them and goes on (interactive.py has the other ways questions travel).

A client that follows tasks (SEP-2663) and calls a tool with `ask_before_task` gets a
`window`: the questions the script asks within it (of starting, or of its latest
answers) come as input-required rounds. Once it reports progress, or works on for the
window without asking, the call is a `RunningCall` that a task follows
(`RunningCall.follow`): later questions, progress and the result are the task's.

A parked call waits for its answers at most `answer_timeout` seconds (config/server.json
`interactive.answer_timeout_seconds`), then it is stopped: a human's pause does not
hold a process and a slot of `--max-concurrency` for the whole run timeout.

A parked call lives in the process that runs its script. Its `requestState` names that
process (`instance`, the server's one name: tasks/owners.py). The state opens on any
replica given the shared `state.secret_file` (serve/calls/request_state.py), but the script does not
move: re-running it elsewhere, its earlier answers replayed, would run again whatever it
did before it asked. With Redis (`state.url`) the replica a retry reaches relays the
answers here and answers the client with what `resume` gives (a forwarding kind of
parked calls, made only then: forwarding.py); without it, the retry is told that its
call waits in another process, and the README shows how to route a client's retries
to one replica.
"""

from __future__ import annotations

import logging
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
import mcp.types as types
from anyio.abc import TaskGroup, TaskStatus
from mcp.shared.exceptions import MCPError

from toolkiln.runner import ToolResult
from toolkiln.serve.calls.waiting_call import RunningCall, WaitingCall, ended

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

    from toolkiln.serve.calls.record import CallRecord
    from toolkiln.serve.tasks.protocol import CreateTaskResult

logger = logging.getLogger(__name__)

_TIMED_OUT_KEPT = 256  # states of calls stopped unanswered, remembered to say so


class ParkedCalls:
    """Interactive calls of 2026-07-28 clients, parked between an input-required result
    and the call that brings the answers. They run in `run`'s task group, so stopping
    the server stops their processes.

    A client may never come back. A parked call still holds a process and a slot of
    `--max-concurrency`, so it waits at most `answer_timeout()` seconds for its answers,
    and at most `max_waiting` wait at once: parking one more stops the one that has
    waited longest.
    """

    def __init__(
        self,
        max_waiting: int,
        instance: str,
        answer_timeout: Callable[[], float] = lambda: 300.0,
    ) -> None:
        self.max_waiting = max_waiting
        self.answer_timeout = answer_timeout
        self.instance = instance  # the server's one name (tasks/owners.py), in the states it makes
        self._group: TaskGroup | None = None
        self._waiting: dict[str, WaitingCall] = {}  # by state, oldest first
        self._timed_out: OrderedDict[str, float] = OrderedDict()  # recent states stopped unanswered

    @property
    def waiting(self) -> int:
        """How many calls wait for their answers here (a drain waits for them: drain.py)."""
        return len(self._waiting)

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
        window: float | None = None,
    ) -> ToolResult | types.InputRequiredResult | RunningCall:
        """Run `call(observer)` in the background: its result, or its first questions.
        `given` (inputResponses without a requestState) answers the questions it has keys
        for. With a `window`: a `RunningCall` when it neither asks nor ends within it."""
        if self._group is None:
            raise MCPError(code=types.INTERNAL_ERROR, message="interactive calls are not being served")
        waiting = WaitingCall(capabilities, given)

        async def in_background() -> None:
            async with waiting.events_in:
                with waiting.scope:
                    await waiting.send(("done", await call(waiting)))
            for state in [state for state, parked in self._waiting.items() if parked is waiting]:
                del self._waiting[state]  # ended (timed out) while waiting for an answer
                waiting.events.close()

        self._group.start_soon(in_background)
        return await self._next(waiting, window)

    async def resume_call(
        self,
        state: str,
        responses: dict[str, Any] | None,
        ctx: ServerRequestContext[Any],
        record: CallRecord,
        window: float | None = None,
    ) -> ToolResult | types.InputRequiredResult | RunningCall | CreateTaskResult:
        """A client's retry that brings the answers of the call `state` names: `resume`
        (forwarding.py's kind sends it on when another replica runs the call)."""
        return await self.resume(state, responses, ctx.session.client_capabilities, window)

    async def resume(
        self,
        state: str,
        responses: dict[str, Any] | None,
        capabilities: types.ClientCapabilities | None,
        window: float | None = None,
    ) -> ToolResult | types.InputRequiredResult | RunningCall:
        waiting = self._waiting.pop(state, None)
        if waiting is None:
            if not state.startswith(f"{self.instance}."):
                raise MCPError(
                    code=types.INVALID_PARAMS,
                    message="This call's script waits for its answers in another server process (another "
                    "replica behind the load balancer, or this one before a restart), and only that "
                    "process can go on with it. Route a client's requests to one replica (README: "
                    "Running several replicas), or call the tool again.",
                )
            if state in self._timed_out:
                raise MCPError(
                    code=types.INVALID_PARAMS,
                    message=f"This call waited {self._timed_out[state]:g} s for its answers and was "
                    "stopped (config/server.json `interactive.answer_timeout_seconds`); call it again.",
                )
            raise MCPError(
                code=types.INVALID_PARAMS,
                message="This call is no longer waiting for input (it ended or timed out); call it again.",
            )
        if waiting.watch is not None:
            waiting.watch.cancel()
        if not (responses or {}).keys() >= waiting.requests.keys():  # ask again for what is missing
            return self._park(waiting)
        waiting.capabilities = capabilities
        waiting.answer(responses or {})
        return await self._next(waiting, window)

    async def _next(
        self, waiting: WaitingCall, window: float | None = None
    ) -> ToolResult | types.InputRequiredResult | RunningCall:
        if window is not None:
            with anyio.move_on_after(window):
                await waiting.stirred.wait()
            if not waiting.events.statistics().current_buffer_used:
                return RunningCall(waiting)  # at work (progress, or the window passed), not asking
        try:
            kind, value = await waiting.events.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            return ToolResult(text="The call ended without a result; see the server log.", is_error=True)
        waiting.stirred = anyio.Event()
        if kind == "input":
            return self._park(waiting)
        waiting.events.close()
        return ended(waiting, kind, value)

    def _park(self, waiting: WaitingCall) -> types.InputRequiredResult:
        assert self._group is not None
        state = f"{self.instance}.{secrets.token_urlsafe(16)}"
        self._waiting[state] = waiting
        while len(self._waiting) > self.max_waiting:
            oldest = self._waiting.pop(next(iter(self._waiting)))
            logger.warning("stopped a call that waited for a client's answers too long behind newer ones")
            oldest.scope.cancel()
        waiting.watch = anyio.CancelScope()
        self._group.start_soon(self._stop_unanswered, state, waiting, waiting.watch)
        return types.InputRequiredResult(input_requests=dict(waiting.requests), request_state=state)

    async def _stop_unanswered(self, state: str, waiting: WaitingCall, watch: anyio.CancelScope) -> None:
        """Stop the parked call if its answers have not come within the answer timeout."""
        seconds = self.answer_timeout()
        with watch:
            await anyio.sleep(seconds)
            if self._waiting.get(state) is waiting:
                del self._waiting[state]
                logger.warning(
                    "stopped a call of %r: no answers came within %g s (interactive.answer_timeout_seconds)",
                    waiting.tool,
                    seconds,
                )
                self._timed_out[state] = seconds
                while len(self._timed_out) > _TIMED_OUT_KEPT:
                    self._timed_out.popitem(last=False)
                waiting.scope.cancel()
