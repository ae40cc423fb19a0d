"""Interactive scripts: a running script asks the client for input, and gets the answer.

A tool whose config says `interactive: true` gets its arguments as one JSON line on
stdin, and stdin stays open. To ask, the script writes one line on stderr:

    ELICIT {"message": "...", "requestedSchema": {...}}   ask the user (elicitation/create)
    SAMPLE {"messages": [...], "maxTokens": 100}          ask the client's model (sampling/createMessage)
    ROOTS                                                 ask for the client's roots (roots/list)
    INPUT {"key": {"method": "...", "params": {...}}, ...}  several at once, answered by key

and reads the answer as one JSON line on stdin: the client's result (for INPUT, an
object of results by key), or `{"error": "..."}` when the client cannot answer. How
the question reaches the client (a request now, or an input-required result that the
client answers by calling again) is the server's business; the script only waits.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio

logger = logging.getLogger(__name__)
T = TypeVar("T")

METHODS = {"ELICIT": "elicitation/create", "SAMPLE": "sampling/createMessage", "ROOTS": "roots/list"}
_LINE = re.compile(r"^(ELICIT|SAMPLE|ROOTS|INPUT)(?:\s+(.*))?$")
# Questions a script may have outstanding before the server has answered the first.
QUEUE = 8


@dataclass(frozen=True)
class InputLine:
    """One question line: the requests by key; `single` when the answer is one bare result."""

    requests: dict[str, dict[str, Any]]
    single: str | None


# Answers the requests of one line: a result (or {"error": ...}) per key.
Asker = Callable[[dict[str, dict[str, Any]]], Awaitable[dict[str, Any]]]


def parse_input_line(line: str) -> InputLine | str | None:
    """The question on a stderr line; a string saying what is wrong with one that looks
    like a question but is not; None for any other line."""
    match = _LINE.match(line)
    if match is None:
        return None
    verb, rest = match.group(1), (match.group(2) or "").strip()
    try:
        params = json.loads(rest) if rest else {}
    except json.JSONDecodeError as error:
        return f"{verb} must be followed by one JSON object on the same line ({error.msg})"
    if not isinstance(params, dict):
        return f"{verb} must be followed by a JSON object"
    if verb != "INPUT":
        return InputLine({"input": {"method": METHODS[verb], "params": params}}, single="input")
    for key, request in params.items():
        if not (isinstance(request, dict) and request.get("method") in METHODS.values()):
            return f"INPUT {key!r}: each request needs a method among {sorted(METHODS.values())}"
    return InputLine(params, single=None)


class Conversation:
    """The questions of one running script, answered in order by `ask`."""

    def __init__(self, ask: Asker) -> None:
        self._ask = ask
        self._questions_in, self._questions = anyio.create_memory_object_stream[InputLine](QUEUE)
        self.answers_in, self.answers = anyio.create_memory_object_stream[bytes](QUEUE)

    def offer(self, line: str) -> bool:
        """Take `line` if it is a question (from the stderr reader, synchronously)."""
        parsed = parse_input_line(line)
        if parsed is None:
            return False
        if isinstance(parsed, str):
            logger.warning("%s", parsed)
            self._reply({"error": parsed})
            return True
        try:
            self._questions_in.send_nowait(parsed)
        except (anyio.WouldBlock, anyio.ClosedResourceError):
            self._reply({"error": f"at most {QUEUE} questions may wait for answers"})
        return True

    async def run(self, run: Callable[..., Awaitable[T]], first_input: bytes) -> T:
        """`run(input=..., more_input=...)` (a `run_process`) while answering its questions.
        Its exceptions come out as they are, not in an exception group."""
        outcome: list[T] = []
        failure: list[Exception] = []
        streams = (self._questions_in, self._questions, self.answers_in, self.answers)
        async with contextlib.AsyncExitStack() as closing, anyio.create_task_group() as answering:
            for stream in streams:
                await closing.enter_async_context(stream)
            answering.start_soon(self.answer_all)
            try:
                outcome.append(await run(input=first_input, more_input=self.answers))
            except Exception as error:
                failure.append(error)
            answering.cancel_scope.cancel()
        if failure:
            raise failure[0]
        return outcome[0]

    async def answer_all(self) -> None:
        """Answer the questions as they come, until cancelled."""
        async for question in self._questions:
            try:
                results = await self._ask(question.requests)
            except anyio.get_cancelled_exc_class():
                raise
            except Exception as error:  # the client failed to answer: the script decides
                logger.debug("a question of a script went unanswered", exc_info=True)
                results = {key: {"error": str(error) or type(error).__name__} for key in question.requests}
            self._reply(results[question.single] if question.single else results)

    def _reply(self, answer: dict[str, Any]) -> None:
        line = json.dumps(answer, ensure_ascii=False).encode() + b"\n"
        try:
            self.answers_in.send_nowait(line)
        except (anyio.WouldBlock, anyio.ClosedResourceError):  # it asks without reading its answers
            logger.warning("an interactive script is not reading its answers; one was dropped")
