"""Serving over stdio: what MCP clients spawn. The protocol's fds carry nothing else.

The SDK's `stdio_server` reads stdin in a worker thread that cannot be cancelled, so a
SIGTERM would wait for the client's next message before the server could stop. We hand
it our own streams instead: reads and writes that wait on the event loop, so shutdown
is immediate and every tool process of a call in flight is stopped on the way out.

The SDK drops a line it cannot read as a JSON-RPC message, so a request with an id
would never be answered; the reader answers those itself (JSON-RPC 2.0: -32700 for
invalid JSON, -32600 for an invalid request, -32602 for params that are not an object).
"""

from __future__ import annotations

import json
import logging
import os
import signal
import stat
from collections import deque
from collections.abc import Callable
from typing import Any, cast

import anyio
import mcp.types as types
import pydantic_core
from anyio.abc import TaskStatus
from mcp.server.stdio import stdio_server
from mcp.shared.dispatcher import coerce_request_id

from toolkiln.serve.handlers import build_server
from toolkiln.serve.service import ToolService
from toolkiln.serve.stdio.backlog import Backlog, RequestId
from toolkiln.serve.stdio.early import (
    SILENCED_PREFIX,
    EarlyAnswers,
    HandOver,
    divert_protocol_fds,
    restore_protocol_fds,
)

logger = logging.getLogger(__name__)

READ_CHUNK = 64 * 1024
# Requests taken in and not yet answered, at most: past it the next ones are held, and
# past MAX_HELD_BYTES of those stdin is not read until the client reads its answers.
# Each unanswered one may hold an answer of up to a tool's output cap (256 KiB by default).
MAX_UNANSWERED = 32
MAX_HELD_BYTES = 1024 * 1024


async def serve_stdio(
    service: ToolService, on_ready: Callable[[], None] | None = None, early: EarlyAnswers | None = None
) -> None:
    """Serve until the client closes stdin or a signal asks us to stop. `on_ready` runs
    once a signal would stop the server cleanly (exit 0), before the protocol starts;
    `early` answered the handshake meanwhile (early.py), and its session goes on here."""
    server = build_server(service)
    handed = early.hand_over() if early is not None else HandOver(*divert_protocol_fds())
    try:
        async with anyio.create_task_group() as group:
            await group.start(_stop_on_signal, group.cancel_scope)
            if on_ready is not None:
                on_ready()
            backlog = Backlog(MAX_UNANSWERED)
            writer = _Writer(handed.wire_out, backlog, handed.silenced)
            reader = _LineReader(handed.wire_in, writer, backlog, handed.replay, eof=handed.eof)
            streams = cast(Any, reader), cast(Any, writer)
            async with stdio_server(*streams) as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())
            group.cancel_scope.cancel()
    finally:
        restore_protocol_fds(handed.wire_in, handed.wire_out)


async def _stop_on_signal(
    scope: anyio.CancelScope, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED
) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP, signal.SIGINT) as signals:
        task_status.started()
        async for signum in signals:
            logger.info("stopping on %s", signal.Signals(signum).name)
            scope.cancel()
            return


class _LineReader:
    """Lines of an fd, each read waiting on the event loop (cancellable); a line that is
    no JSON-RPC message is answered on `writer` (if it needs an answer) and skipped.

    Requests pass only while `backlog` has room (serve/stdio/backlog.py): past it they are held,
    up to `MAX_HELD_BYTES`, and then stdin is not read until answers go out."""

    def __init__(
        self, fd: int, writer: _Writer, backlog: Backlog, read: bytes = b"", *, eof: bool = False
    ) -> None:
        self.fd = fd
        self.writer = writer
        self.backlog = backlog
        self.buffer = bytearray(read)  # what was read before (early.py's hand-over)
        self.eof = eof
        self.held: deque[tuple[str, RequestId]] = deque()
        self.held_bytes = 0
        # A file or /dev/null cannot be polled (and a read from it never waits).
        self.pollable = _is_stream(fd) or os.isatty(fd)

    def __aiter__(self) -> _LineReader:
        return self

    async def __anext__(self) -> str:
        while True:
            if self.held and (self.backlog.has_room() or self.eof):
                request, request_id = self.held.popleft()
                self.held_bytes -= len(request)
                self.backlog.admit(request_id)
                return request
            line = await self._next_line()
            if line is None:
                continue  # room for a held request
            if not line.strip(" \t\r\n"):  # JSON's whitespace only: "\x1c" is no blank line
                continue
            try:
                message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValueError:  # pydantic's ValidationError is one
                answer = _answer_to_invalid(line)
            else:
                # The SDK reads a request whose id is not a string or an integer as a notification.
                if not (isinstance(message, types.JSONRPCNotification) and '"id"' in line):
                    if self._pass(line, message):
                        return line
                    continue  # held until there is room
                if (answer := _answer_to_invalid(line)) is None:
                    return line  # "id" was not the message's own
            logger.warning("ignored an invalid message on stdin: %.200s", line.rstrip())
            if answer is not None:
                await self.writer.write(json.dumps(answer) + "\n", answers_request=False)

    def _pass(self, line: str, message: types.JSONRPCMessage) -> bool:
        """Whether `line` goes to the SDK now (else a request is held)."""
        if isinstance(message, types.JSONRPCRequest):
            if self.held or not self.backlog.has_room():
                self.held.append((line, message.id))
                self.held_bytes += len(line)
                return False
            self.backlog.admit(message.id)
        elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            cancelled = (message.params or {}).get("requestId")
            if isinstance(cancelled, str | int) and not self._drop_held(cancelled):
                self.backlog.settle(cancelled)  # the SDK answers no cancelled request
        return True

    def _drop_held(self, request_id: RequestId) -> bool:
        """Forget a held request the client cancelled (it gets no answer); whether one was."""
        for index, (line, held_id) in enumerate(self.held):
            if coerce_request_id(held_id) == coerce_request_id(request_id):
                del self.held[index]
                self.held_bytes -= len(line)
                return True
        return False

    async def _next_line(self) -> str | None:
        """The next line; None when a held request found room meanwhile."""
        while (end := self.buffer.find(b"\n")) < 0 and not self.eof:
            if self.held_bytes >= MAX_HELD_BYTES:  # the client reads no answers: stop reading
                await self.backlog.wait_for_room()
                return None
            if self.pollable and not await self._readable_before_room():
                return None
            chunk = os.read(self.fd, READ_CHUNK)
            self.eof = not chunk
            self.buffer += chunk
        if end < 0:
            end = len(self.buffer) - 1
            if end < 0:
                if self.held:
                    return None  # held requests go out before the end
                raise StopAsyncIteration
        line = bytes(self.buffer[: end + 1])
        del self.buffer[: end + 1]
        return line.decode("utf-8", errors="replace")

    async def _readable_before_room(self) -> bool:
        """Wait for input; while requests are held, also for room (False when that came first)."""
        if not self.held:
            await anyio.wait_readable(self.fd)
            return True
        readable = False
        async with anyio.create_task_group() as group:

            async def wait_room() -> None:
                await self.backlog.wait_for_room()
                group.cancel_scope.cancel()

            group.start_soon(wait_room)
            await anyio.wait_readable(self.fd)
            readable = True
            group.cancel_scope.cancel()
        return readable


def _answer_to_invalid(line: str) -> dict[str, Any] | None:
    """The JSON-RPC error for a line the SDK would drop; None for what needs no answer
    (a notification or a response, however malformed)."""
    try:
        message = pydantic_core.from_json(line, allow_inf_nan=False)
    except ValueError as error:
        return _rpc_error(None, types.PARSE_ERROR, f"Parse error: {error}")
    if not isinstance(message, dict):
        return _rpc_error(None, types.INVALID_REQUEST, "Invalid Request: expected one JSON object")
    if "id" not in message or "method" not in message or "result" in message or "error" in message:
        return None
    request_id = message["id"]
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return _rpc_error(None, types.INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer')
    if message.get("jsonrpc") != "2.0" or not isinstance(message["method"], str):
        return _rpc_error(
            request_id, types.INVALID_REQUEST, 'Invalid Request: expected "jsonrpc": "2.0" and a "method"'
        )
    if not isinstance(message.get("params", {}), dict):
        return _rpc_error(request_id, types.INVALID_PARAMS, 'Invalid params: "params" must be an object')
    return _rpc_error(request_id, types.INVALID_REQUEST, "Invalid Request: not a valid MCP request")


def _rpc_error(request_id: str | int | None, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


class _Writer:
    """Writes to an fd without blocking the event loop on a slow reader, one line at a time;
    an answer written settles its request in the backlog. The answers to `silenced` ids
    (requests early.py answered, replayed to the SDK) settle and are not written."""

    def __init__(self, fd: int, backlog: Backlog, silenced: set[str] | None = None) -> None:
        self.fd = fd
        self.backlog = backlog
        self.silenced = silenced or set()
        # The SDK's answers and the reader's must not interleave. `fast_acquire`: a free lock
        # is taken without giving the event loop a turn first (which delayed every answer).
        self.lock = anyio.Lock(fast_acquire=True)
        # Only a pipe or socket is ours alone; a terminal's flags are shared with the shell.
        if _is_stream(fd):
            os.set_blocking(fd, False)

    async def write(self, text: str, *, answers_request: bool = True) -> None:
        if self.silenced and answers_request and (silenced := _silenced_id(text, self.silenced)):
            self.silenced.discard(silenced)
            self.backlog.settle(silenced)
            return
        data = memoryview(text.encode("utf-8"))
        async with self.lock:
            while data:
                try:
                    data = data[os.write(self.fd, data) :]
                except BlockingIOError:
                    await anyio.wait_writable(self.fd)
        if answers_request:  # the SDK's lines; the reader's own answers settle nothing
            self.backlog.settle_answer(text)

    async def flush(self) -> None:
        return None


def _silenced_id(text: str, silenced: set[str]) -> str | None:
    """The id `text` answers when it is one of `silenced` (ids only early.py makes)."""
    head = f'{{"jsonrpc":"2.0","id":"{SILENCED_PREFIX}'
    if not text.startswith(head):
        return None
    request_id = text[len(head) - len(SILENCED_PREFIX) :].split('"', 1)[0]
    return request_id if request_id in silenced else None


def _is_stream(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
