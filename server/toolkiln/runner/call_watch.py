"""What the server's telemetry learns of one call as the runner runs it.

`serve` sets a `CallWatch` in `CALL_WATCH` for each call when tracing or metrics are on
(toolkiln/telemetry/watch.py); the runner tells it when the call got its slot, when its
process started (how long the spawn took, whether confined) and how it ended, and asks
it for the trace context a script may join (`TRACEPARENT`). Without one (the default,
and `toolkiln call`), the runner tells nobody: one context variable read per call.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol


class CallWatch(Protocol):
    def call_started(self, tool: str) -> None: ...

    def slot_taken(self, waited: float, free: bool) -> None:
        """`waited` seconds for a slot; `free`: one was had (else the call timed out)."""

    def trace_context(self) -> Mapping[str, str]:
        """The `traceparent` of the process about to start; {}: none."""

    def process_started(self, spawn_seconds: float | None, confined: bool) -> None: ...

    def process_ended(self, exit_code: int | None, timed_out: bool, duration: float) -> None: ...

    def call_ended(self, is_error: bool | None) -> None:
        """The call's outcome: None when it was cancelled."""


CALL_WATCH: ContextVar[CallWatch | None] = ContextVar("toolkiln_call_watch", default=None)


@contextmanager
def watching(watch: CallWatch | None) -> Iterator[None]:
    """`watch` watches the calls the runner makes within (none: as it was)."""
    if watch is None:
        yield
        return
    token = CALL_WATCH.set(watch)
    try:
        yield
    finally:
        CALL_WATCH.reset(token)


def timed_start(
    watch: CallWatch, confined: bool, on_started: Callable[[], None] | None
) -> Callable[[], None]:
    """`on_started` (run_process's), telling `watch` first how long the process took to start."""
    asked = time.perf_counter()

    def started() -> None:
        watch.process_started(time.perf_counter() - asked, confined)
        if on_started is not None:
            on_started()

    return started
