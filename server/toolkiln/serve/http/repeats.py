"""Keep one error from filling the log: what a flood of connections makes the HTTP
server say thousands of times is said a few times, then summed up.

- asyncio reports each failed `accept()` (EMFILE: out of file descriptors) through the
  loop's exception handler, with a traceback, up to `backlog` times per second (it goes
  on trying in the same turn after the first failure); `quiet_accept_errors` counts them
  into the connection summary instead.
- `RepeatFilter` passes the first few records of one message (its format string) per
  window on the loggers a client can make talk (uvicorn's "Invalid HTTP request", the
  Guard's denials), and notes on the next one that passes how many it held back.
- the SDK says `Terminating session: None` at the end of every stateless request (there
  was no session to end); `SessionlessEnd` drops exactly that line.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import time
from typing import Any

from toolkiln.serve.http.connections import closed_connections

WINDOW_SECONDS = 10.0
BURST = 5  # records of one message per window
MAX_KEYS = 512  # messages tracked at once: format strings, so few; cleared if ever more
NOISY_LOGGERS = ("uvicorn.error", "asyncio", "toolkiln.serve.http.guard")
SDK_TRANSPORT_LOGGER = "mcp.server.streamable_http"
OUT_OF_RESOURCES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


class RepeatFilter(logging.Filter):
    def __init__(self) -> None:
        super().__init__()
        self.windows: dict[tuple[str, str], tuple[float, int, int]] = {}  # key -> (start, passed, held)

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg))
        now = time.monotonic()
        start, passed, held = self.windows.get(key, (now, 0, 0))
        if now - start >= WINDOW_SECONDS:
            start, passed = now, 0
        if passed >= BURST:
            self.windows[key] = (start, passed, held + 1)
            return False
        if len(self.windows) >= MAX_KEYS and key not in self.windows:
            self.windows.clear()
        self.windows[key] = (start, passed + 1, 0)
        if held:
            record.msg = f"{record.getMessage()} (and {held} more like it, not logged)"
            record.args = None
        return True


class SessionlessEnd(logging.Filter):
    """Drops the SDK's `Terminating session: None`: a stateless request had no session."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != "Terminating session: None"


_SESSIONLESS_END = SessionlessEnd()


def install_repeat_filter() -> RepeatFilter:
    """Put one `RepeatFilter` on each of the `NOISY_LOGGERS` (and `SessionlessEnd` on the
    SDK's transport); returns it."""
    repeat = RepeatFilter()
    for name in NOISY_LOGGERS:
        logging.getLogger(name).addFilter(repeat)
    logging.getLogger(SDK_TRANSPORT_LOGGER).addFilter(_SESSIONLESS_END)
    return repeat


def remove_repeat_filter(repeat: RepeatFilter) -> None:
    for name in NOISY_LOGGERS:
        logging.getLogger(name).removeFilter(repeat)
    logging.getLogger(SDK_TRANSPORT_LOGGER).removeFilter(_SESSIONLESS_END)


def quiet_accept_errors(loop: asyncio.AbstractEventLoop) -> None:
    """Count `accept()` failures for lack of resources instead of logging each one."""

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        accepting = "accept" in str(context.get("message", ""))
        if accepting and isinstance(error, OSError) and error.errno in OUT_OF_RESOURCES:
            closed_connections.count("accept")
            return
        loop.default_exception_handler(context)

    loop.set_exception_handler(handle)
