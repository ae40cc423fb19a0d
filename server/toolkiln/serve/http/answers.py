"""How a session answers a POSTed request: one JSON body when that is all it needs, else
an SSE stream (the spec lets the server choose, request by request).

The SDK's transport chooses once for every request: a stream each (what resumability,
progress, log messages and elicitation need), or JSON each (none of them). A stream costs
the server about a millisecond of CPU a request (sse-starlette's five tasks, a memory
stream between two of them, chunked writes), more than the rest of a fast call's path
over HTTP.

`ChoosingTransport` waits for the first thing the request has to say, at most
`JSON_WINDOW` seconds. Its answer, first: a JSON body. Anything else first (progress,
a log message, a request to the client), or nothing yet when the window closes: the SSE
stream the SDK would have opened, its priming event first (minted, as the SDK does,
before the request is dispatched, so that the ids on the wire keep their order), then
what came. Every message is still stored for resumption as before; what a JSON answer
gives up is only resuming a call whose connection dropped within its first
`JSON_WINDOW` seconds, which had not answered yet. TOOLKILN_JSON_WINDOW sets another
window (seconds); 0 keeps a stream for every request.
"""

from __future__ import annotations

import logging
import os
from functools import partial
from http import HTTPStatus

import anyio
import pydantic_core
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.streamable_http import (
    CONTENT_TYPE_SSE,
    MCP_SESSION_ID_HEADER,
    REQUEST_STREAM_BUFFER_SIZE,
    EventMessage,
    SSEEvent,
    StreamableHTTPServerTransport,
    check_accept_headers,
)
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp.types import (
    DEFAULT_NEGOTIATED_VERSION,
    INTERNAL_ERROR,
    JSONRPCError,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError
from sse_starlette import EventSourceResponse
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

logger = logging.getLogger(__name__)

JSON_WINDOW = 0.1  # seconds a request's answer may take and still come as one JSON body
WINDOW_VARIABLE = "TOOLKILN_JSON_WINDOW"  # another window, in seconds; 0: a stream for every request


def json_window() -> float:
    """`JSON_WINDOW`, or the one TOOLKILN_JSON_WINDOW names (0 keeps a stream for every
    request, as the SDK does)."""
    given = os.environ.get(WINDOW_VARIABLE)
    try:
        window = float(given) if given else JSON_WINDOW
    except ValueError:
        window = -1.0
    if not 0 <= window < float("inf"):
        logger.warning("%s=%s is not a number of seconds: %s s it is", WINDOW_VARIABLE, given, JSON_WINDOW)
        return JSON_WINDOW
    return window


class ChoosingTransport(StreamableHTTPServerTransport):
    """The SDK's transport, answering a request in JSON when its answer comes first and
    within `JSON_WINDOW` seconds (module docstring); in SSE otherwise."""

    window = JSON_WINDOW  # seconds; set for each session by its manager (json_window())

    async def _handle_post_request(
        self, scope: Scope, request: Request, receive: Receive, send: Send
    ) -> None:
        try:
            message = await self._plain_request(request)
            if message is None:  # not a request, or not a valid one: the SDK's way, and its errors
                await super()._handle_post_request(scope, request, receive, send)
            elif await self._validate_request_headers(request, send):
                await self._answer(message, scope, request, receive, send)
        except Exception as error:  # what the SDK does for any failure (a client gone mid-body)
            logger.exception("Error handling POST request")
            response = self._create_error_response(
                "Error handling POST request", HTTPStatus.INTERNAL_SERVER_ERROR, INTERNAL_ERROR
            )
            await response(scope, receive, send)
            if self._read_stream_writer is not None:
                await self._read_stream_writer.send(Exception(error))

    async def _plain_request(self, request: Request) -> JSONRPCRequest | None:
        """The request this POST carries, if it is one this class answers: a valid request
        other than `initialize`, with the headers the SDK asks of it (checked again by
        the SDK itself for anything else)."""
        if self.is_json_response_enabled or self._read_stream_writer is None or self.window <= 0:
            return None
        if not all(check_accept_headers(request)) or not self._check_content_type(request):
            return None
        try:
            message = jsonrpc_message_adapter.validate_python(
                pydantic_core.from_json(await request.body()), by_name=False
            )
        except (ValueError, ValidationError):
            return None
        if not isinstance(message, JSONRPCRequest) or message.method == "initialize":
            return None
        return message

    async def _answer(
        self, message: JSONRPCRequest, scope: Scope, request: Request, receive: Receive, send: Send
    ) -> None:
        assert self._read_stream_writer is not None  # checked by _plain_request
        request_id = str(message.id)
        version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER, DEFAULT_NEGOTIATED_VERSION)
        priming = await self._mint_priming_event(request_id, version)  # before dispatch, as the SDK
        self._request_streams[request_id] = anyio.create_memory_object_stream[EventMessage](
            REQUEST_STREAM_BUFFER_SIZE
        )
        reader = self._request_streams[request_id][1]
        dispatched = self._create_session_message(message, request, request_id, version)
        await self._read_stream_writer.send(dispatched)
        first: EventMessage | None = None
        closed = False
        with anyio.move_on_after(self.window):
            try:
                first = await reader.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                closed = True  # close_sse_stream(), or the session ended: the SSE way below
        if first is not None and isinstance(first.message, JSONRPCResponse | JSONRPCError):
            await self._clean_up_memory_streams(request_id)
            await self._create_json_response(first.message)(scope, receive, send)
            return
        await self._stream(request_id, None if closed else reader, priming, first, scope, receive, send)

    async def _stream(
        self,
        request_id: str,
        reader: MemoryObjectReceiveStream[EventMessage] | None,
        priming: SSEEvent | None,
        first: EventMessage | None,
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        """The SSE stream of the SDK's `_handle_post_request`, with what came first."""
        writer, events = anyio.create_memory_object_stream[SSEEvent](0)
        if reader is not None:
            self._sse_stream_writers[request_id] = writer
        headers = {
            "Cache-Control": "no-cache, no-transform",
            "Connection": "keep-alive",
            "Content-Type": CONTENT_TYPE_SSE,
            **({MCP_SESSION_ID_HEADER: self.mcp_session_id} if self.mcp_session_id else {}),
        }
        sender = partial(self._send_events, request_id, writer, reader, priming, first)
        response = EventSourceResponse(content=events, data_sender_callable=sender, headers=headers)
        try:
            await response(scope, receive, send)
        except Exception:
            logger.exception("SSE response error")
            await writer.aclose()
            await self._clean_up_memory_streams(request_id)
        finally:
            await events.aclose()

    async def _send_events(
        self,
        request_id: str,
        writer: MemoryObjectSendStream[SSEEvent],
        reader: MemoryObjectReceiveStream[EventMessage] | None,
        priming: SSEEvent | None,
        first: EventMessage | None,
    ) -> None:
        """The SDK's `_run_sse_writer`, after `first`; without `reader` (the stream was
        closed before anything came), the priming event alone."""
        try:
            async with writer:
                if priming is not None:
                    await writer.send(priming)
                if reader is None:
                    return
                async with reader:
                    if first is not None:
                        await writer.send(self._create_event_data(first))
                    async for event in reader:
                        await writer.send(self._create_event_data(event))
                        if isinstance(event.message, JSONRPCResponse | JSONRPCError):
                            break
        except anyio.ClosedResourceError:
            logger.debug("SSE stream closed by close_sse_stream()")
        except Exception:
            logger.exception("Error in SSE writer")
        finally:
            self._sse_stream_writers.pop(request_id, None)
            await self._clean_up_memory_streams(request_id)
