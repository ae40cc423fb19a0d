"""The server's metrics: the semantic conventions' `mcp.server.operation.duration`, and
toolkiln's own per tool (calls, errors, timeouts, in flight, queue wait), per process
(spawn time, confined or not) and per task status.

Counts are `Tally`s read at collection (asynchronous instruments); durations are
histograms, recorded per call (~5-15 us each, the SDK's own cost).

Attribute values come from a closed set (method names, tool names of the catalog,
statuses), never from what a client sent, so the number of series stays bounded.
"""

from __future__ import annotations

from typing import Any

from opentelemetry.metrics import CallbackOptions, Meter, Observation

# docs/gen-ai/mcp.md (semantic-conventions-genai): the buckets of the MCP duration metrics.
MCP_DURATION_BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
# Spawns and slot waits are milliseconds, not seconds: finer buckets at the low end.
SHORT_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

OPERATION_DURATION = "mcp.server.operation.duration"
QUEUE_WAIT = "toolkiln.tool.queue.wait"
SPAWN_DURATION = "toolkiln.process.spawn.duration"


Key = tuple[tuple[str, Any], ...]  # an attribute set, as a tuple of pairs (hashable)


class Tally:
    """Counts per attribute set, kept as plain integers and read by an asynchronous
    instrument when the metrics are collected: a count costs a dict update per call,
    where a synchronous counter costs ~7 us (the SDK hashes the attributes each time)."""

    def __init__(self) -> None:
        self.values: dict[Key, int] = {}

    def add(self, amount: int, key: Key) -> None:
        self.values[key] = self.values.get(key, 0) + amount

    def observe(self, options: CallbackOptions) -> list[Observation]:
        # list() of a dict's items runs in C, whole, under the GIL: safe beside the event loop.
        return [Observation(value, dict(key)) for key, value in list(self.values.items())]


class Instruments:
    """The instruments of one meter, made once."""

    def __init__(self, meter: Meter) -> None:
        self.operation_duration = meter.create_histogram(
            OPERATION_DURATION,
            unit="s",
            description="MCP request or notification duration as observed on the receiver "
            "from the time it was received until the result or ack is sent.",
            explicit_bucket_boundaries_advisory=list(MCP_DURATION_BUCKETS),
        )
        self.queue_wait = meter.create_histogram(
            QUEUE_WAIT,
            unit="s",
            description="Time a call waited for a free slot (max_concurrency) before its process started.",
            explicit_bucket_boundaries_advisory=list(SHORT_BUCKETS),
        )
        self.spawn = meter.create_histogram(
            SPAWN_DURATION,
            unit="s",
            description="Time to start a tool's process; with toolkiln.confined=true it includes "
            "bubblewrap's setup, so the difference of the two series is the cost of confinement.",
            explicit_bucket_boundaries_advisory=list(SHORT_BUCKETS),
        )
        self.calls = Tally()
        self.errors = Tally()
        self.timeouts = Tally()
        self.active = Tally()
        self.tasks = Tally()
        tallies = (
            ("toolkiln.tool.calls", self.calls, "{call}", "Tool calls run (tasks included)."),
            (
                "toolkiln.tool.errors",
                self.errors,
                "{call}",
                "Tool calls that ended as errors (error.type: tool_error, timeout, cancelled).",
            ),
            ("toolkiln.tool.timeouts", self.timeouts, "{call}", "Tool calls stopped at their timeout."),
            ("toolkiln.tasks", self.tasks, "{task}", "Tasks that reached each status."),
        )
        for name, tally, unit, description in tallies:
            meter.create_observable_counter(name, [tally.observe], unit=unit, description=description)
        meter.create_observable_up_down_counter(
            "toolkiln.tool.calls.active",
            [self.active.observe],
            unit="{call}",
            description="Tool calls in flight.",
        )

    def task_status(self, status: str) -> None:
        self.tasks.add(1, (("toolkiln.task.status", status),))

    def operation(self, seconds: float, attributes: dict[str, Any]) -> None:
        self.operation_duration.record(seconds, attributes)
