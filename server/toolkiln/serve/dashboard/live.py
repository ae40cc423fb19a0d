"""A call from the dashboard, streamed back as Server-Sent Events while it runs.

`POST /dashboard/call` answers `text/event-stream`: a `start` event, then `progress` and
`log` events as the script prints them (throttled like an MCP client's notifications),
then one `result` (the MCP result, as a client gets it) or `error` (an unknown tool).
The call goes through `ToolService` like every other: its arguments checked, its limits
applied, audited with the transport `dashboard`. A browser that goes away (a closed
tab, a reload) has the call's processes stopped, as an MCP client that disconnects.
An interactive script's questions are refused: the page cannot answer them.
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
from toolkiln.serve.notify import ThrottledNotifier
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
    """Every log line (debug and up) and the progress of one call, as events."""

    def __init__(self, send_event: SendEvent) -> None:
        super().__init__("debug")
        self._send_event = send_event

    async def _send_log(self, level: types.LoggingLevel, message: str) -> None:
        await self._send_event("log", {"level": level, "message": message})

    async def _send_progress(self, line: ProgressLine) -> None:
        await self._send_event(
            "progress", {"progress": line.progress, "total": line.total, "message": line.message}
        )


class CallStream:
    """The ASGI response that runs one call and streams it."""

    def __init__(self, service: ToolService, name: str, arguments: Mapping[str, Any]) -> None:
        self.service = service
        self.name = name
        self.arguments = arguments

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": HEADERS})

        async def send_event(event: str, data: Mapping[str, Any]) -> None:
            body = f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()
            await send({"type": "http.response.body", "body": body, "more_body": True})

        async with anyio.create_task_group() as group:
            group.start_soon(_cancel_on_disconnect, receive, group.cancel_scope)
            await send_event("start", {"tool": self.name})
            try:
                result = await self.service.call_tool(
                    self.name, self.arguments, transport="dashboard", notifier=StreamNotifier(send_event)
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
