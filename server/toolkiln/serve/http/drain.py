"""A clean stop of `serve --http`: the drain. On SIGTERM (or Ctrl-C):

1. `/ready` says `draining` (serve/readiness.py), the listening socket is closed (a load
   balancer's next connection is refused, and nginx passes the request to another
   replica: `proxy_next_upstream error`, which is safe, since nothing of it was sent),
   idle keep-alive connections are closed, and busy ones close after their response;
   a request that would open a new stateful session gets 503 with `Retry-After`;
2. the calls in flight, the interactive calls waiting here for their answers (with a
   shared state store only: another replica may still take an answer and relay it; a
   single server's closed listener takes none) and the tasks this server runs finish,
   for up to the drain's grace (`--drain-seconds`, TOOLKILN_DRAIN_SECONDS, default
   DEFAULT_DRAIN_SECONDS); what is left then
   (long-lived event streams, which a client reopens elsewhere) is closed;
3. the server exits 0, without a traceback. Calls still running when the grace ends are
   stopped (their process groups too), and their tasks are failed with a message that
   says the server was stopped, not that it crashed.

A second SIGTERM or Ctrl-C stops at once. SIGHUP reads the token and secret files
again (serve/http/credentials.py). uvicorn's own signal handling is off (`DrainingServer`):
it would stop taking calls only for a hard-coded grace, then re-raise the signal, and
the process would end killed by it.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import anyio
import uvicorn
from anyio.abc import TaskStatus
from starlette.types import ASGIApp, Receive, Scope, Send

from toolkiln.serve.readiness import Readiness

logger = logging.getLogger(__name__)

DEFAULT_DRAIN_SECONDS = 30.0
DRAINING = "draining"
DRAINING_REASON = "this server is stopping: what runs here finishes, new work goes to other replicas"
CUT_SECONDS = 1  # after the drain: how long uvicorn waits for what is left before cancelling it
POLL_SECONDS = 0.05
SETTLE_SECONDS = 0.5
RETRY_AFTER_SECONDS = 1
_REFUSAL = b'{"error": "this server is stopping (draining): try again, another replica will answer"}'


class DrainingServer(uvicorn.Server):
    """uvicorn's server, without its signal handlers: `Drain.run_signals` handles them."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def serve_draining(
    config: uvicorn.Config,
    listener: socket.socket,
    drain: Drain,
    reload: Callable[[str], None],
    watch: Callable[[], Coroutine[Any, Any, None]],
) -> None:
    """Serve on `listener` until a signal has drained the server; `watch` runs beside
    (the token and secret files' watch), SIGHUP calls `reload`."""
    server = DrainingServer(config)
    try:
        async with anyio.create_task_group() as group:
            await group.start(drain.run_signals, server, reload)
            group.start_soon(watch)
            await server.serve(sockets=[listener])
            group.cancel_scope.cancel()
    finally:
        drain.readiness.release(DRAINING)


class Drain:
    """Counts the requests in flight, and drains the server when told to stop."""

    def __init__(
        self,
        seconds: float,
        running_tasks: Callable[[], int] = lambda: 0,
        stop_tasks: Callable[[str], None] = lambda message: None,
        parked_calls: Callable[[], int] = lambda: 0,
        readiness: Readiness | None = None,
    ) -> None:
        self.seconds = seconds
        self.running_tasks = running_tasks
        self.stop_tasks = stop_tasks  # ends the tasks still running, failed with this message
        self.parked_calls = parked_calls  # interactive calls waiting here for their answers
        self.draining = False
        self.in_flight = 0
        self.readiness = readiness or Readiness()  # says `draining` on GET /ready

    def wrap(self, app: ASGIApp, *, stateless: bool) -> ASGIApp:
        """`app`, its requests counted; while draining, no new stateful session opens."""

        async def counted(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http" or _is_probe_or_stream(scope):
                await app(scope, receive, send)
                return
            if self.draining and not stateless and _opens_session(scope):
                await _refuse(send)
                return
            self.in_flight += 1
            try:
                await app(scope, receive, send)
            finally:
                self.in_flight -= 1

        return counted

    @property
    def calls(self) -> int:
        """Requests in flight, and interactive calls waiting here for their answers."""
        return self.in_flight + self.parked_calls()

    @property
    def busy(self) -> bool:
        return self.calls > 0 or self.running_tasks() > 0

    async def run_signals(
        self,
        server: uvicorn.Server,
        reload: Callable[[str], None],
        *,
        task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Until cancelled: SIGTERM or SIGINT drains then stops `server` (a second one
        stops it at once); SIGHUP calls `reload`. Off the main thread (an embedding
        program's), signals are the program's own business: nothing is installed."""
        if threading.current_thread() is not threading.main_thread():
            task_status.started()
            await anyio.sleep_forever()
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as signals:
            task_status.started()
            async with anyio.create_task_group() as group:
                async for signum in signals:
                    name = signal.Signals(signum).name
                    if signum == signal.SIGHUP:
                        reload(f"on {name}")
                    elif self.draining:
                        logger.warning("%s again: stopping now, without waiting for the calls", name)
                        server.force_exit = server.should_exit = True
                    else:
                        group.start_soon(self.drain, server, name)

    async def drain(self, server: uvicorn.Server, why: str) -> None:
        """Stop taking work, wait for the work in flight (up to `seconds`), then stop."""
        self.draining = True
        self.readiness.hold(DRAINING, DRAINING_REASON)
        logger.info(
            "draining on %s: no new connections; %d call(s) and %d task(s) running may finish "
            "within %g s (a second signal stops at once)",
            why, self.calls, self.running_tasks(), self.seconds,
        )  # fmt: skip
        deadline = time.monotonic() + self.seconds
        for listening in server.servers:
            listening.close()
        _end_keep_alive(server, idle_too=False)  # busy connections close after their response
        # A connection accepted a moment ago has not sent its request yet; closing it
        # would lose the request. What is still idle after SETTLE_SECONDS was kept alive.
        await anyio.sleep(SETTLE_SECONDS)
        _end_keep_alive(server, idle_too=True)
        while self.busy and time.monotonic() < deadline and not server.should_exit:
            await anyio.sleep(POLL_SECONDS)
        if self.busy:
            calls, tasks = self.calls, self.running_tasks()
            logger.warning(
                "the drain's %g s are over: %d call(s) and %d task(s) still running are stopped",
                self.seconds, calls, tasks,
            )  # fmt: skip
            self.stop_tasks(
                f"The server was stopped ({why}) and its drain of {self.seconds:g} s ended before "
                "the task finished; its script was stopped. Call the tool again."
            )
            with anyio.move_on_after(CUT_SECONDS):  # each task's end written to the store
                while self.running_tasks():
                    await anyio.sleep(POLL_SECONDS)
        else:
            _close_streams(server)
            logger.info("drained: no call or task running; stopping")
        server.should_exit = True


def _is_probe_or_stream(scope: Scope) -> bool:
    """`/health`, `/ready`, and a GET /mcp event stream without Last-Event-ID (a stream
    that only waits for news: it is reopened elsewhere, never waited for)."""
    path = scope.get("path", "")
    if path in ("/health", "/ready"):
        return True
    if scope.get("method") == "GET" and path == "/mcp":
        return not any(name == b"last-event-id" for name, _ in scope.get("headers", ()))
    return False


def _opens_session(scope: Scope) -> bool:
    if scope.get("method") != "POST" or scope.get("path") != "/mcp":
        return False
    return not any(name == b"mcp-session-id" for name, _ in scope.get("headers", ()))


async def _refuse(send: Send) -> None:
    headers = [
        (b"content-type", b"application/json"),
        (b"retry-after", str(RETRY_AFTER_SECONDS).encode()),
        (b"connection", b"close"),
        (b"content-length", str(len(_REFUSAL)).encode()),
    ]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": _REFUSAL})


def _end_keep_alive(server: uvicorn.Server, *, idle_too: bool) -> None:
    """A busy connection closes after its response; with `idle_too`, an idle one now."""
    for connection in list(server.server_state.connections):
        if idle_too or getattr(connection, "cycle", None) is not None:
            connection.shutdown()


def _close_streams(server: uvicorn.Server) -> None:
    """Close what is left once no call runs: event streams that only wait for news."""
    for connection in list(server.server_state.connections):
        transport: Any = getattr(connection, "transport", None)
        if transport is not None:
            transport.close()
