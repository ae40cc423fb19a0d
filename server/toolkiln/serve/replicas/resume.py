"""A `GET /mcp` with `Last-Event-ID` of a shared stream, answered on any replica.

The SDK answers a resumption only on the replica that holds the session (and a stateless
server not at all). With `state.url` set, every event is in Redis (replicas/event_store.py), so
whichever replica the client reaches replays what it missed, then follows the stream as
the replica that runs the call writes to it, until the call's response. The client is
never left waiting on nothing:

- an id whose events were not kept, or a stream that expired or fell behind: 404 with
  a JSON-RPC error that says so (call again);
- Redis cannot be reached: 503, saying so;
- the replica that ran the call stopped (its heartbeat in Redis is gone): an error
  response for the call, which ends the stream.
"""

from __future__ import annotations

import logging

import anyio
import redis.exceptions
from mcp.types import INTERNAL_ERROR, ErrorData, JSONRPCError, JSONRPCMessage, JSONRPCResponse
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from toolkiln.serve.replicas.event_store import (
    TTL_SECONDS,
    UNKEPT,
    Cursor,
    Event,
    SharedEvents,
    StreamGone,
    read_after,
    writer_of,
)

logger = logging.getLogger(__name__)

PING_EVERY = 15  # waits for events (of BLOCK_MILLISECONDS) between keep-alive comments
GONE = (
    "this stream is not kept any more (it ended more than {ttl} s ago, the client fell too far "
    "behind, or the id is not one this server gave): call again"
)
UNKEPT_MESSAGE = (
    "this stream's events were not kept (the shared store could not be reached when they were "
    "sent): call again"
)
WRITER_GONE = "the replica that ran this call stopped before it answered: call again"


class ResumingApp:
    """`app` (the SDK's /mcp), except for resumptions of shared streams."""

    def __init__(self, app: ASGIApp, shared: SharedEvents) -> None:
        self.app = app
        self.shared = shared

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        cursor = _cursor(scope) if scope["type"] == "http" and scope["method"] == "GET" else None
        if cursor is None:
            await self.app(scope, receive, send)
            return
        await resume_stream(self.shared, cursor, scope, receive, send)


async def resume_stream(
    shared: SharedEvents, cursor: Cursor, scope: Scope, receive: Receive, send: Send
) -> None:
    if cursor.entry == UNKEPT:
        await _refuse(404, UNKEPT_MESSAGE, scope, receive, send)
        return
    try:
        missed = await read_after(shared, cursor)
    except StreamGone:
        await _refuse(404, GONE.format(ttl=TTL_SECONDS), scope, receive, send)
        return
    except (redis.exceptions.RedisError, OSError) as error:
        shared.failed(error)
        message = f"the shared store (Redis at {shared.where}) cannot be reached, and resuming needs it"
        await _refuse(503, message, scope, receive, send)
        return
    headers = [
        (b"content-type", b"text/event-stream"),
        (b"cache-control", b"no-cache, no-transform"),
        (b"x-accel-buffering", b"no"),  # nginx: pass each event on as it comes
    ]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    async with anyio.create_task_group() as group:
        group.start_soon(_cancel_on_disconnect, receive, group.cancel_scope)
        try:
            await _follow(shared, cursor, missed, send)
        except (redis.exceptions.RedisError, OSError) as error:
            shared.failed(error)  # the stream just ends: the client may resume again
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        group.cancel_scope.cancel()


async def _follow(shared: SharedEvents, cursor: Cursor, events: list[Event], send: Send) -> None:
    """Send `events`, then what follows them, until the call's response."""
    waits = 0
    try:
        while True:
            for entry, message, _ in events:
                cursor = Cursor(cursor.token, entry)
                if message is not None:
                    await _send_event(send, f"{cursor.token}.{entry}", message)
                    if isinstance(message, JSONRPCResponse | JSONRPCError):
                        return
            if not events:
                waits += 1
                if (stream := await _dead_stream(shared, cursor)) is not None:
                    error = ErrorData(code=INTERNAL_ERROR, message=WRITER_GONE)
                    await _send_event(
                        send, None, JSONRPCError(jsonrpc="2.0", id=_request_id(stream), error=error)
                    )
                    return
                if waits % PING_EVERY == 0:
                    await send({"type": "http.response.body", "body": b": ping\n\n", "more_body": True})
            events = await read_after(shared, cursor, block=True)
    except StreamGone:
        return  # expired under us: the client's next resumption is told so


async def _dead_stream(shared: SharedEvents, cursor: Cursor) -> str | None:
    """None while the replica that writes the stream runs (and the stream is kept while
    this client follows it, however long the call is silent); else the stream's name."""
    writer, stream = await writer_of(shared, cursor)
    if writer != shared.instance and not await shared.runs(writer):
        return stream
    await shared.client.expire(shared.key(cursor.token), TTL_SECONDS)
    return None


async def _send_event(send: Send, event_id: str | None, message: JSONRPCMessage) -> None:
    data = message.model_dump_json(by_alias=True, exclude_unset=True)
    frame = f"event: message\n{f'id: {event_id}' + chr(10) if event_id else ''}data: {data}\n\n"
    await send({"type": "http.response.body", "body": frame.encode(), "more_body": True})


async def _cancel_on_disconnect(receive: Receive, scope: anyio.CancelScope) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    scope.cancel()


async def _refuse(status: int, message: str, scope: Scope, receive: Receive, send: Send) -> None:
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": INTERNAL_ERROR, "message": message}}
    await JSONResponse(body, status_code=status)(scope, receive, send)


def _cursor(scope: Scope) -> Cursor | None:
    for name, value in scope["headers"]:
        if name == b"last-event-id":
            return Cursor.parse(value.decode("latin-1"))
    return None


def _request_id(stream: str) -> int | str:
    """The id of the request a stream answers (the SDK names a stream `str(id)`)."""
    return int(stream) if stream.isdigit() and str(int(stream)) == stream else stream
