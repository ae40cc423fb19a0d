"""A running call's progress and log lines, forwarded to the MCP client as notifications
(and, by `ThrottledNotifier`'s other subclass, to the dashboard as events).

The runner hands each structured stderr line to a `ClientNotifier` as it arrives (a
plain function call, from the reader); a forwarding task sends them on. Progress never
goes back; a call's first `PROGRESS_BURST` values are each sent, in order, however fast
they come (so a script's few steps all reach the client, whatever the machine's load);
past those it is throttled: the latest value at most every `PROGRESS_INTERVAL`, a value
still waiting replaced by a newer one. At most `LOG_BACKLOG` log lines wait to be sent, so
a script printing thousands of lines cannot flood the client. Nothing is sent that the
script did not print, and whatever is waiting when the call ends is sent before its result.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import logging
import warnings
from collections import deque
from collections.abc import Iterator
from typing import Any, get_args

import anyio
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning

from toolkiln.runner import LoggingObserver, LogLine, ProgressLine
from toolkiln.serve.calls.interactive import ask_client_now

logger = logging.getLogger(__name__)

PROGRESS_INTERVAL = 0.1
PROGRESS_BURST = 5
SEND_GRACE = 1.0
LOG_BACKLOG = 256
LEVELS: tuple[types.LoggingLevel, ...] = get_args(types.LoggingLevel)
DEFAULT_LEVEL: types.LoggingLevel = "info"


class LogLevels:
    """The level each handshake-era connection asked for with `logging/setLevel`.

    A connection is known by its HTTP session id; stdio has a single connection.
    (On 2026-07-28 each request carries its own opt-in, which the SDK applies.)
    """

    def __init__(self) -> None:
        self._levels: dict[str | None, types.LoggingLevel] = {}

    def set(self, ctx: ServerRequestContext[Any], level: types.LoggingLevel) -> None:
        self._levels[connection_key(ctx)] = level

    def get(self, ctx: ServerRequestContext[Any]) -> types.LoggingLevel:
        return self._levels.get(connection_key(ctx), DEFAULT_LEVEL)


def connection_key(ctx: ServerRequestContext[Any]) -> str | None:
    request = ctx.request
    headers = getattr(request, "headers", None)
    return headers.get("mcp-session-id") if headers is not None else None


def at_least(level: str, threshold: str) -> bool:
    # LogLine levels are MCP level names already (runner/stderr.py).
    return LEVELS.index(level) >= LEVELS.index(threshold)


@contextlib.contextmanager
def sdk_deprecations_silenced() -> Iterator[None]:
    """Logging is deprecated on 2026-07-28 but is how 2025-11-25 clients get logs."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        yield


class ThrottledNotifier(abc.ABC):
    """A `CallObserver` that queues a call's lines and sends them on, throttled.

    Subclasses say how a log line and a progress value are sent, and who answers an
    interactive script's questions.
    """

    def __init__(self, threshold: types.LoggingLevel) -> None:
        self.threshold = threshold
        self.server_log = LoggingObserver()
        self._logs: deque[LogLine] = deque(maxlen=LOG_BACKLOG)
        self._dropped = 0
        self._burst: deque[ProgressLine] = deque()  # a call's first values, each to be sent
        self._kept = 0  # how many values went into the burst
        self._progress: ProgressLine | None = None  # the latest past the burst, to be sent
        self._accepted = float("-inf")  # the highest value taken: progress never goes back
        # Made with the forwarder, by the first line: most calls send nothing, and these
        # (and cancelling a scope, which formats the task's repr) cost each call ~20 us.
        self._forwarder: asyncio.Task[None] | None = None
        self._forwarding: anyio.CancelScope | None = None
        self._wake: anyio.Event | None = None
        self._forwarded: anyio.Event | None = None
        self._stopped = False

    def _woken(self) -> None:
        if self._forwarder is None:
            if self._stopped:  # the call is over: what came late waits for `flush`
                return
            # The event loop's own task, started by the first line: a task group around
            # every call cost each one a turn of the loop on leaving it (~0.1 ms).
            # `stop_forwarding` ends it.
            self._forwarding, self._wake, self._forwarded = anyio.CancelScope(), anyio.Event(), anyio.Event()
            self._forwarder = asyncio.get_running_loop().create_task(self._forward())
        assert self._wake is not None
        self._wake.set()

    def on_log(self, tool: str, line: LogLine) -> None:
        self.server_log.on_log(tool, line)
        if not at_least(line.level, self.threshold):
            return
        if len(self._logs) == self._logs.maxlen:
            self._dropped += 1
        self._logs.append(line)
        self._woken()

    def on_progress(self, tool: str, line: ProgressLine) -> None:
        self.server_log.on_progress(tool, line)
        if line.progress <= self._accepted:
            return
        self._accepted = line.progress
        if self._kept < PROGRESS_BURST:
            self._kept += 1
            self._burst.append(line)
        else:
            self._progress = line
        self._woken()

    async def on_input(self, tool: str, requests: dict[str, dict[str, Any]]) -> dict[str, Any]:
        return await self.server_log.on_input(tool, requests)

    async def _forward(self) -> None:
        """Send what arrives, throttled, until `stop_forwarding` (then `flush` sends the rest)."""
        assert self._forwarding is not None and self._forwarded is not None
        try:
            with self._forwarding:
                while True:
                    assert self._wake is not None
                    await self._wake.wait()
                    self._wake = anyio.Event()
                    # A line taken from the queue is sent whole even if the call ends
                    # meanwhile (bounded, so a stuck client cannot hold a cancellation up).
                    with anyio.move_on_after(SEND_GRACE, shield=True):
                        await self.flush()
                    await anyio.sleep(PROGRESS_INTERVAL)
        finally:
            self._forwarded.set()

    async def stop_forwarding(self) -> None:
        """The call is over: no more throttled sends (what is queued waits for `flush`)."""
        self._stopped = True  # no forwarder starts later
        if self._forwarder is not None:
            assert self._forwarding is not None and self._forwarded is not None
            self._forwarding.cancel()
            with anyio.CancelScope(shield=True):
                await self._forwarded.wait()

    async def flush(self) -> None:
        if not (self._logs or self._dropped or self._burst or self._progress):
            return
        try:
            await self._send_pending()
        except anyio.get_cancelled_exc_class():
            raise
        except Exception:  # the client went away; the call itself goes on
            logger.debug("could not forward notifications of a call", exc_info=True)
            self._logs.clear()
            self._burst.clear()

    async def _send_pending(self) -> None:
        with sdk_deprecations_silenced():
            if self._dropped:
                dropped, self._dropped = self._dropped, 0
                await self._send_log("warning", f"{dropped} log lines were dropped (the client was too slow)")
            while self._logs:
                line = self._logs.popleft()
                await self._send_log(line.level, line.message)  # type: ignore[arg-type]
        while self._burst:
            await self._send_progress(self._burst.popleft())
        progress, self._progress = self._progress, None
        if progress is not None:
            await self._send_progress(progress)

    @abc.abstractmethod
    async def _send_log(self, level: types.LoggingLevel, message: str) -> None: ...

    @abc.abstractmethod
    async def _send_progress(self, line: ProgressLine) -> None: ...


class ClientNotifier(ThrottledNotifier):
    """The `CallObserver` of one call from an MCP client."""

    def __init__(self, ctx: ServerRequestContext[Any], threshold: types.LoggingLevel) -> None:
        super().__init__(threshold)
        self.ctx = ctx

    async def on_input(self, tool: str, requests: dict[str, dict[str, Any]]) -> dict[str, Any]:
        return await ask_client_now(self.ctx, requests)

    async def _send_log(self, level: types.LoggingLevel, message: str) -> None:
        await self.ctx.session.send_log_message(level, message, related_request_id=self.ctx.request_id)

    async def _send_progress(self, line: ProgressLine) -> None:
        await self.ctx.session.report_progress(line.progress, line.total, line.message)
