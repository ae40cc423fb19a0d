"""One call's process span and metrics, told by the runner as it runs the call
(runner/call_watch.py).

The span `process {tool}` is a child of the request's span (a task's too: its job
inherits the request's context), from the moment the process is about to start until
it ended: its exit code, whether it timed out or was killed, whether it ran confined,
and how long the spawn took. Its context is what the script gets as `TRACEPARENT`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opentelemetry.trace import Span, SpanKind, StatusCode, Tracer

from toolkiln.telemetry.context import script_context
from toolkiln.telemetry.instruments import Instruments, Key


class ToolWatch:
    """A `CallWatch` (runner/call_watch.py) that records spans, metrics, or both."""

    def __init__(self, tracer: Tracer | None, instruments: Instruments | None) -> None:
        self.tracer = tracer
        self.instruments = instruments
        self.tool = ""
        self.attributes: dict[str, Any] = {}
        self.key: Key = ()
        self.span: Span | None = None
        self.timed_out = False

    def call_started(self, tool: str) -> None:
        self.tool = tool
        self.attributes = {"gen_ai.tool.name": tool}
        self.key = (("gen_ai.tool.name", tool),)
        if self.instruments is not None:
            self.instruments.calls.add(1, self.key)
            self.instruments.active.add(1, self.key)

    def slot_taken(self, waited: float, free: bool) -> None:
        if self.instruments is not None:
            self.instruments.queue_wait.record(max(waited, 0.0), self.attributes)
        if not free:
            self.timed_out = True

    def trace_context(self) -> Mapping[str, str]:
        span = self._span()
        return {} if span is None else script_context(span)

    def process_started(self, spawn_seconds: float | None, confined: bool) -> None:
        span = self._span()
        if span is not None:
            span.set_attribute("toolkiln.process.confined", confined)
            if spawn_seconds is not None:
                span.set_attribute("toolkiln.process.spawn.duration", spawn_seconds)
        if self.instruments is not None and spawn_seconds is not None:
            self.instruments.spawn.record(spawn_seconds, {"toolkiln.confined": confined})

    def process_ended(self, exit_code: int | None, timed_out: bool, duration: float) -> None:
        self.timed_out = self.timed_out or timed_out
        killed = timed_out or (exit_code is not None and exit_code < 0)
        if self.span is not None:
            if exit_code is not None:
                self.span.set_attribute("process.exit.code", exit_code)
            self.span.set_attribute("toolkiln.process.timed_out", timed_out)
            self.span.set_attribute("toolkiln.process.killed", killed)

    def call_ended(self, is_error: bool | None) -> None:
        error = (
            "cancelled"
            if is_error is None
            else "timeout"
            if self.timed_out
            else "tool_error"
            if is_error
            else None
        )
        if self.instruments is not None:
            self.instruments.active.add(-1, self.key)
            if error is not None:
                self.instruments.errors.add(1, (*self.key, ("error.type", error)))
            if self.timed_out:
                self.instruments.timeouts.add(1, self.key)
        if self.span is not None:
            if error is not None:
                self.span.set_attribute("error.type", error)
                self.span.set_status(StatusCode.ERROR)
            if is_error is None:  # cancelled: its process group was stopped
                self.span.set_attribute("toolkiln.process.killed", True)
            self.span.end()

    def _span(self) -> Span | None:
        if self.span is None and self.tracer is not None:
            self.span = self.tracer.start_span(
                f"process {self.tool}", kind=SpanKind.INTERNAL, attributes=self.attributes
            )
        return self.span
