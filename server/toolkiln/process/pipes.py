"""A process's pipes: stdin fed without blocking, stdout and stderr read by the event
loop as data comes, and what is kept of them capped (the start of stdout, the tail of
stderr, stderr's lines handed on as they arrive)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable

import anyio
from anyio.abc import ObjectReceiveStream

from toolkiln.process.spawner import Child

logger = logging.getLogger(__name__)

READ_CHUNK = 64 * 1024
MAX_LINE = 64 * 1024

StderrLineHandler = Callable[[str], None]


def decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


class PipeReaders:
    """stdout and stderr, read by the event loop's readers as data comes: no task per pipe.

    A short script's output, its end and its exit arrive together; with a task per pipe
    each call paid two task starts and the loop turns to wake them (~0.2 ms a call).
    """

    # Chunks read per wake-up: enough for most outputs and their end in one, while a
    # flood still lets the event loop serve other calls in between.
    CHUNKS_PER_WAKE = 8

    def __init__(self, sinks: dict[int, Callable[[bytes], None]]) -> None:
        self._loop = asyncio.get_running_loop()
        self._sinks = sinks
        self._waiter: asyncio.Future[None] | None = None
        for fd in sinks:
            os.set_blocking(fd, False)
            self._loop.add_reader(fd, self._read, fd)

    def _read(self, fd: int) -> None:
        try:
            for _ in range(self.CHUNKS_PER_WAKE):
                chunk = os.read(fd, READ_CHUNK)
                if not chunk:
                    break
                self._sinks[fd](chunk)
            else:
                return  # more to come: the reader fires again on the next turn
        except BlockingIOError:
            return
        except Exception:  # a bug of ours in a sink: the pipe is read no further, the loop goes on
            logger.exception("reading a tool's output failed")
        self._loop.remove_reader(fd)
        del self._sinks[fd]
        if not self._sinks and self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    @property
    def open(self) -> bool:
        """Whether a pipe is still to end."""
        return bool(self._sinks)

    async def closed(self) -> None:
        """Until both pipes have ended (every writer has closed them)."""
        while self._sinks:
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None

    def stop(self) -> None:
        for fd in self._sinks:
            self._loop.remove_reader(fd)
        self._sinks = {}


@contextlib.asynccontextmanager
async def feeding(
    process: Child, data: bytes, more: ObjectReceiveStream[bytes] | None
) -> AsyncIterator[None]:
    """stdin gets `data`, then each chunk `more` brings. The usual input (arguments that
    fit in the pipe, nothing more to come) is written at once and stdin closed, without
    a task; otherwise a task writes as the script reads."""
    if process.stdin is None:
        yield
        return
    unwritten = _write_at_once(process.stdin.fileno(), data)
    if not unwritten and more is None:
        process.stdin.close()
        yield
        return
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_feed, process, unwritten, more)
        yield
        tasks.cancel_scope.cancel()


def _write_at_once(fd: int, data: bytes) -> bytes:
    """Write what the pipe takes without waiting; what is left."""
    os.set_blocking(fd, False)
    try:
        return data[os.write(fd, data) :] if data else data
    except BlockingIOError:
        return data
    except (BrokenPipeError, ConnectionResetError):
        return b""  # the script did not read its input; that is its choice


async def _feed(process: Child, data: bytes, more: ObjectReceiveStream[bytes] | None) -> None:
    assert process.stdin is not None
    fd = process.stdin.fileno()
    try:
        await write_all(fd, data)
        if more is not None:
            async for chunk in more:
                await write_all(fd, chunk)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the script did not read its input; that is its choice
    finally:
        process.stdin.close()


async def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:  # write first, wait only when the pipe is full (as drain reads)
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            await anyio.wait_writable(fd)


async def drain(fd: int, sink: Callable[[bytes], None]) -> None:
    # Read first, wait only when the pipe is empty: a short script's output and its end
    # are usually there together, and each wait costs the event loop two epoll changes.
    os.set_blocking(fd, False)
    while True:
        try:
            chunk = os.read(fd, READ_CHUNK)
        except BlockingIOError:
            await anyio.wait_readable(fd)
            continue
        if not chunk:
            return
        sink(chunk)


class CappedBuffer:
    """Keeps the first `limit` bytes and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.limit - len(self.data)
        if room > 0:
            self.data += chunk[:room]


class TailBuffer:
    """Keeps the last `limit` bytes and counts all of them."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.data += chunk
        if len(self.data) > self.limit:
            del self.data[: len(self.data) - self.limit]


class StderrReader:
    """Keeps the tail of stderr and hands each decoded line to a handler as it arrives."""

    def __init__(self, limit: int, on_line: StderrLineHandler | None) -> None:
        self.tail = TailBuffer(limit)
        self.on_line = on_line
        self.pending = bytearray()

    def add(self, chunk: bytes) -> None:
        self.tail.add(chunk)
        if self.on_line is None:
            return
        self.pending += chunk
        *lines, rest = self.pending.split(b"\n")
        self.pending = bytearray(rest)
        for line in lines:
            self._emit(line)
        if len(self.pending) > MAX_LINE:  # an endless line is still delivered, in pieces
            self._emit(self.pending)
            self.pending = bytearray()

    def finish(self) -> None:
        if self.on_line is not None and self.pending:
            self._emit(self.pending)
            self.pending = bytearray()

    def _emit(self, line: bytes | bytearray) -> None:
        assert self.on_line is not None
        try:
            self.on_line(decode(bytes(line)).rstrip("\r"))
        except Exception:  # a broken handler must not stop the reading
            logger.exception("stderr line handler failed")
