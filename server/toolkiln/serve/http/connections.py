"""How many connections the HTTP server holds, and for how long one may take to send
its request.

uvicorn has no read timeout of its own (its keep-alive timer stops at the first byte),
and no cap on open connections (`limit_concurrency` answers 503 only after a request's
headers, so a connection that never finishes them holds its file descriptor forever).
`ReadDeadlines`, a subclass of uvicorn's h11 protocol, adds both:

- a request's headers must be complete within `read_timeout` seconds of the connection
  (or of the previous response on a kept-alive connection), and its body within
  `read_timeout` seconds of its headers; a connection that misses either is closed;
- at most `max_connections` are open: one more closes the connection that has waited
  longest for a request (idle, or still dribbling its headers), or, if every connection
  is serving a request, is answered 503 and closed.

`connection_cap` derives the cap from the open-file limit (RLIMIT_NOFILE), leaving room
for the files and pipes of tool processes, and for the connections that asyncio accepts
in one turn of its loop before any of them is counted. What is closed is logged as one
summary line now and then (`Tally`), never once per connection.
"""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import time
from dataclasses import dataclass
from typing import Any, cast

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from toolkiln.serve.http.batched_writes import BatchedWrites

logger = logging.getLogger(__name__)

DEFAULT_READ_TIMEOUT = 10.0
MAX_CONNECTIONS = 4096  # the derived cap's ceiling, however high the open-file limit
MIN_CONNECTIONS = 16
RESERVED_FILES = 32  # the audit log, the watcher, the event loop, the python workers' pipes...
FILES_PER_TOOL_PROCESS = 8  # stdin, stdout and stderr pipes, and what the runner opens beside
SUMMARY_SECONDS = 10.0  # a summary of closed connections at most this often
REFUSAL = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"retry-after: 1\r\nconnection: close\r\ncontent-length: 33\r\n\r\ntoo many connections; retry soon\n"
)


@dataclass(frozen=True)
class ConnectionLimits:
    max_connections: int
    read_timeout: float = DEFAULT_READ_TIMEOUT
    accept_batch: int = 128  # connections asyncio may accept in one turn (uvicorn's `backlog`)


def connection_cap(tool_processes: int, max_connections: int | None = None) -> ConnectionLimits:
    """The limits for this process: `max_connections` if given, else what the open-file
    limit leaves after tool processes, the files already open and one turn's accepts."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    files = soft if soft != resource.RLIM_INFINITY else 1 << 20
    spare = files - _open_files() - RESERVED_FILES - FILES_PER_TOOL_PROCESS * tool_processes
    batch = max(8, min(512, spare // 8))
    derived = max(MIN_CONNECTIONS, min(MAX_CONNECTIONS, spare - 2 * batch))
    if spare - 2 * batch < MIN_CONNECTIONS:
        logger.warning(
            "the open-file limit (%d) leaves room for few connections; raise it (ulimit -n) "
            "or lower --max-concurrency",
            files,
        )
    return ConnectionLimits(max_connections=max_connections or derived, accept_batch=batch)


def _open_files() -> int:
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            return len(os.listdir(folder))
        except OSError:
            continue
    return 64


class Tally:
    """Counts of one kind of event, logged as one line at most every `SUMMARY_SECONDS`."""

    def __init__(self, describe: dict[str, str]) -> None:
        self.describe = describe  # kind -> what a count of it means, e.g. "closed %d slow connections"
        self.counts: dict[str, int] = {}
        self.flush_scheduled = False

    def count(self, kind: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if not self.flush_scheduled:
            self.flush_scheduled = True
            asyncio.get_running_loop().call_later(SUMMARY_SECONDS, self.flush)

    def flush(self) -> None:
        self.flush_scheduled = False
        if self.counts:
            parts = [self.describe[kind] % number for kind, number in sorted(self.counts.items())]
            logger.warning("in the last %d s: %s", SUMMARY_SECONDS, "; ".join(parts))
        self.counts = {}


closed_connections = Tally(
    {
        "slow": "closed %d connections that did not send their request in time (--read-timeout)",
        "evicted": "closed %d waiting connections to make room (--max-connections)",
        "refused": "refused %d connections: every slot serves a request (--max-connections)",
        "accept": "could not accept %d connections: too many open files (raise ulimit -n)",
    }
)


class ReadDeadlines(H11Protocol):
    """uvicorn's h11 protocol with read deadlines and a connection cap (`limits`)."""

    limits: ConnectionLimits  # set by `protocol_with`

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._phase: str | None = None  # "headers", "body" or None (a request is being served)
        self._since = 0.0
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.transport = cast(asyncio.Transport, BatchedWrites(transport, self.loop))
        if len(self.connections) > self.limits.max_connections:
            victim = min(
                (c for c in self.connections if c is not self and isinstance(c, ReadDeadlines) and c.waiting),
                key=lambda c: c._since,
                default=None,
            )
            if victim is None:
                closed_connections.count("refused")
                transport.write(REFUSAL)
                transport.close()
                return
            closed_connections.count("evicted")
            victim._close()
        self._follow()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    @property
    def waiting(self) -> bool:
        """Waiting for a request (or for the rest of one already answered): closing it
        loses nobody's work."""
        answered = self.cycle is not None and self.cycle.response_complete
        return self._phase == "headers" or (self._phase == "body" and answered)

    def _follow(self) -> None:
        """Arm the deadline of what the connection now waits for: headers or a body."""
        if self.transport.is_closing():
            return
        state = self.conn.their_state
        phase = "headers" if state is h11.IDLE else "body" if state is h11.SEND_BODY else None
        if phase == self._phase:
            return
        self._disarm()
        self._phase, self._since = phase, time.monotonic()
        if phase is not None:
            self._deadline = self.loop.call_later(self.limits.read_timeout, self._too_slow)

    def _too_slow(self) -> None:
        self._deadline = None
        closed_connections.count("slow")
        self._close()

    def _close(self) -> None:
        self._disarm()
        self._phase = None
        if not self.transport.is_closing():
            self.transport.close()  # a request being read sees http.disconnect

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None


def protocol_with(limits: ConnectionLimits) -> type[ReadDeadlines]:
    """The protocol class to give uvicorn (`Config(http=...)`), bound to `limits`."""
    return type("ReadDeadlinesProtocol", (ReadDeadlines,), {"limits": limits})
