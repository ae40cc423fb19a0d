"""One interactive call running in the background between rounds of questions
(`WaitingCall`: the observer of its script), and one that went on working without
asking (`RunningCall`), which a task follows. parked.py keeps the calls that wait.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp.types as types

from toolkiln.runner import CallObserver, LoggingObserver, LogLine, ProgressLine, ToolResult
from toolkiln.serve.calls.interactive import as_json, missing_capability_error, refusal, typed_request


class WaitingCall(LoggingObserver):
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
        self.asked: dict[str, dict[str, Any]] = {}  # the script's latest questions, as it wrote them
        self.tool = ""
        # Set when the call asks, ends, cannot go on, or reports progress (it is at work).
        self.stirred = anyio.Event()
        self.progress: ProgressLine | None = None  # the latest, for a follower to start from
        self.follower: CallObserver | None = None  # a task, once the call is handed to one
        self.watch: anyio.CancelScope | None = None  # the wait for answers, while parked
        self._refused: dict[str, Any] = {}
        self._answers: dict[str, Any] = {}
        self._answered = anyio.Event()
        self.scope = anyio.CancelScope()  # the call's, to stop it when it cannot go on

    def on_log(self, tool: str, line: LogLine) -> None:
        if self.follower is not None:
            self.follower.on_log(tool, line)
        else:
            super().on_log(tool, line)

    def on_progress(self, tool: str, line: ProgressLine) -> None:
        self.tool, self.progress = tool, line
        self.stirred.set()
        if self.follower is not None:
            self.follower.on_progress(tool, line)
        else:
            super().on_progress(tool, line)

    async def on_input(self, tool: str, requests: dict[str, dict[str, Any]]) -> dict[str, Any]:
        if self.follower is not None:
            return await self.follower.on_input(tool, requests)
        self.tool, self.asked = tool, requests
        refused = {key: refusal(self.capabilities, request["method"]) for key, request in requests.items()}
        self._refused = {key: answer for key, answer in refused.items() if answer is not None}
        try:
            self.requests = {key: typed_request(r) for key, r in requests.items() if key not in self._refused}
        except ValueError as error:  # pydantic's: the script's request is malformed
            return {key: {"error": f"malformed request: {error}"} for key in requests}
        if self.requests and self.given.keys() >= self.requests.keys():  # answered in advance
            answers = {key: as_json(self.given.pop(key)) for key in self.requests}
            return {**self._refused, **answers}
        if not self.requests:  # nothing can be asked, and the script waits: the call cannot go on
            await self.send(("missing", list(requests.values())))
            await anyio.sleep_forever()  # until the server stops this call
        self._answered = anyio.Event()
        await self.send(("input", None))
        await self._answered.wait()
        return {**self._refused, **self._answers}

    async def send(self, event: tuple[str, Any]) -> None:
        await self.events_in.send(event)
        self.stirred.set()

    def answer(self, responses: dict[str, Any]) -> None:
        self._answers = {key: as_json(responses[key]) for key in self.requests}
        self._answered.set()

    def give(self, answers: dict[str, Any]) -> None:
        """The answers to all of `asked` (refusals included), from a follower."""
        self._refused, self._answers = {}, answers
        self._answered.set()


class RunningCall:
    """An interactive call that went on working without asking: `follow` hands it to
    a task, which gets its later logs, progress, questions and its result."""

    def __init__(self, waiting: WaitingCall) -> None:
        self.waiting = waiting

    async def follow(self, observer: CallObserver) -> ToolResult:
        waiting = self.waiting
        waiting.follower = observer
        if waiting.progress is not None:
            observer.on_progress(waiting.tool, waiting.progress)
        try:
            while True:
                kind, value = await waiting.events.receive()
                if kind != "input":
                    break
                # It asked just as it was handed over: the follower asks instead.
                waiting.give(await observer.on_input(waiting.tool, waiting.asked))
        except anyio.get_cancelled_exc_class():
            waiting.scope.cancel()  # the task was cancelled: the script stops
            raise
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            return ToolResult(text="The call ended without a result; see the server log.", is_error=True)
        finally:
            waiting.events.close()
        return ended(waiting, kind, value)


def ended(waiting: WaitingCall, kind: str, value: Any) -> ToolResult:
    """The result of a call whose last event was `kind` ("done" or "missing")."""
    if kind == "missing":  # it asks only what the client cannot answer: it cannot go on
        waiting.scope.cancel()
        raise missing_capability_error(value)
    result: ToolResult = value
    return result
