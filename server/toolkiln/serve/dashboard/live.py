"""A call from the dashboard, streamed back as Server-Sent Events while it runs.

`POST /dashboard/call` answers `text/event-stream`: a `start` event, then `progress` and
`log` events as the script prints them (throttled like an MCP client's notifications),
an interactive script's questions as `question` events (questions.py: a form the page
answers), then one `result` (the MCP result, as a client gets it) or `error` (an unknown
tool). The call goes through `ToolService` like every other: its arguments checked, its
limits applied, audited with the transport `dashboard`. A browser that goes away (a
closed tab, a reload, Stop) has the call's processes stopped, as an MCP client that
disconnects, and its open question with them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import mcp.types as types
from mcp.shared.exceptions import MCPError
from starlette.types import Receive, Scope, Send

from toolkiln.runner import ProgressLine
from toolkiln.serve.calls.progress import ThrottledNotifier
from toolkiln.serve.dashboard.questions import MAX_QUESTIONS, Questions, question_of, render_question
from toolkiln.serve.service import ToolService

logger = logging.getLogger(__name__)

SendEvent = Callable[[str, Mapping[str, Any]], Awaitable[None]]
HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"x-accel-buffering", b"no"),  # a proxy in front (nginx) passes each event on at once
    (b"x-content-type-options", b"nosniff"),
]


class StreamNotifier(ThrottledNotifier):
    """Every log line (debug and up) and the progress of one call, as events; its
    questions as forms that only `owner` (the session that started it) may answer."""

    def __init__(self, send_event: SendEvent, questions: Questions, owner: str) -> None:
        super().__init__("debug")
        self._send_event = send_event
        self._questions = questions
        self._owner = owner

    async def on_input(self, tool: str, requests: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """Each question in turn, on the page: a result (or `{"error": ...}`) per key."""
        answers: dict[str, Any] = {}
        for number, (key, request) in enumerate(requests.items()):
            if number >= MAX_QUESTIONS:
                answers[key] = {"error": f"the dashboard asks at most {MAX_QUESTIONS} questions at once"}
                continue
            answers[key] = await self._ask(tool, request)
        return answers

    async def _ask(self, tool: str, request: dict[str, Any]) -> dict[str, Any]:
        params = question_of(request)
        if isinstance(params, str):
            logger.info("%s: %s", tool, params)
            return {"error": params}
        await self.flush()  # what the script said before it asked shows first
        with self._questions.opened(self._owner, dict(params.requested_schema)) as question:
            form = render_question(question, params)
            await self._send_event("question", {"id": question.id, "form": form})
            await question.answered.wait()  # until answered, or the call ends (timeout, Stop, tab closed)
        logger.info("%s: its question was answered on the dashboard", tool)
        assert question.answer is not None
        return question.answer

    async def _send_log(self, level: types.LoggingLevel, message: str) -> None:
        await self._send_event("log", {"level": level, "message": message})

    async def _send_progress(self, line: ProgressLine) -> None:
        await self._send_event(
            "progress", {"progress": line.progress, "total": line.total, "message": line.message}
        )


class CallStream:
    """The ASGI response that runs one call and streams it."""

    def __init__(
        self, service: ToolService, name: str, arguments: Mapping[str, Any], questions: Questions, owner: str
    ) -> None:
        self.service = service
        self.name = name
        self.arguments = arguments
        self.questions = questions
        self.owner = owner

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": HEADERS})

        async def send_event(event: str, data: Mapping[str, Any]) -> None:
            body = f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()
            await send({"type": "http.response.body", "body": body, "more_body": True})

        async with anyio.create_task_group() as group:
            group.start_soon(_cancel_on_disconnect, receive, group.cancel_scope)
            await send_event("start", {"tool": self.name})
            try:
                notifier = StreamNotifier(send_event, self.questions, self.owner)
                result = await self.service.call_tool(
                    self.name, self.arguments, transport="dashboard", notifier=notifier
                )
            except MCPError as error:  # an unknown tool: audited by the service
                await send_event("error", {"message": error.message})
            else:
                await send_event("result", result.model_dump(mode="json", by_alias=True, exclude_none=True))
            group.cancel_scope.cancel()
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _cancel_on_disconnect(receive: Receive, scope: anyio.CancelScope) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    logger.info("the dashboard went away during a call; stopping it")
    scope.cancel()
