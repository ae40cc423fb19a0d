"""What traces and metrics cost per call (issue 28): the work the server adds to one
`tools/call` when they are on, against the same call with them off.

Measured in process, on the code that runs per call: the request middleware (with them
off: the mcp SDK's own, with no tracer provider, as a plain server runs it; on:
toolkiln's, serve/telemetry.py) around a handler that does nothing, plus the runner's
telemetry calls of one call (telemetry/watch.py: slot, trace context, process start and
end). Metrics go to a Prometheus reader (nothing leaves the process); tracing runs
with the `always_off` sampler, so no span is recorded. A whole call over stdio costs
~2-4 ms on this machine, where 0.1 ms is lost in the noise: hence the isolation. The
figure is CPU time (`time.process_time`), not wall time, which on a shared machine
counts the time the process waited for a core.
The same three ways are then measured end to end on real stdio servers called in turns
(telemetry_servers.py), as the server's CPU time per call.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
from mcp.server._otel import OpenTelemetryMiddleware
from opentelemetry.exporter.prometheus import PrometheusMetricReader
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF
from prometheus_client import CollectorRegistry

from benchmarks.rounds import Figures, Preset
from benchmarks.telemetry_servers import measure_servers
from toolkiln.model import TelemetrySettings
from toolkiln.runner.call_watch import CALL_WATCH
from toolkiln.serve.telemetry import TelemetryMiddleware
from toolkiln.telemetry.instruments import Instruments
from toolkiln.telemetry.setup import Telemetry

# The targets (issue 28): per call, metrics on at most +0.1 ms; tracing with a sampler
# that records nothing at most +0.2 ms.
TARGETS_MS = {"metrics": 0.1, "tracing_sampled_out": 0.2}
CALLS_PER_ROUND = 2000
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def _context() -> Any:
    return SimpleNamespace(
        method="tools/call",
        params={"name": "echo", "arguments": {"word": "hi"}},
        protocol_version="2025-11-25",
        request_id=7,
        meta={"traceparent": TRACEPARENT},
        request=None,
    )


def _telemetry(kind: str) -> Telemetry:
    if kind == "metrics":
        reader = PrometheusMetricReader(registry=CollectorRegistry())
        meter = MeterProvider(metric_readers=[reader]).get_meter("toolkiln")
        return Telemetry(TelemetrySettings(prometheus=True), instruments=Instruments(meter))
    tracer = TracerProvider(sampler=ALWAYS_OFF).get_tracer("toolkiln")
    return Telemetry(TelemetrySettings(tracing=True), tracer=tracer)


async def _handler(ctx: Any) -> dict[str, Any]:
    watch = CALL_WATCH.get()
    if watch is not None:  # what the runner tells it during one call
        watch.call_started("echo")
        watch.slot_taken(0.0, True)
        watch.trace_context()
        watch.process_started(0.001, False)
        watch.process_ended(0, False, 0.002)
        watch.call_ended(False)
    return {"content": [{"type": "text", "text": "hi"}], "isError": False}


async def _per_call_us(middleware: Any, calls: int) -> float:
    """CPU time per call (the process's, every thread's): what the work costs, which a
    loaded machine inflates far less than the wall time it takes."""
    ctx = _context()
    started = time.process_time()
    for _ in range(calls):
        await middleware(ctx, _handler)
    return (time.process_time() - started) / calls * 1e6


def measure_telemetry(scratch: Path, preset: Preset) -> Figures:
    variants = {
        "off": OpenTelemetryMiddleware(),  # the SDK's, without a provider: a plain server
        "metrics": TelemetryMiddleware(_telemetry("metrics"), lambda name: [], lambda method, name: True),
        "tracing_sampled_out": TelemetryMiddleware(
            _telemetry("tracing"), lambda name: [], lambda method, name: True
        ),
    }
    samples: dict[str, list[float]] = {name: [] for name in variants}

    async def measure() -> None:
        for middleware in variants.values():  # warm up
            await _per_call_us(middleware, 200)
        for _ in range(preset.rounds * 4):
            for name, middleware in variants.items():  # in turns: the same load for each
                samples[name].append(await _per_call_us(middleware, CALLS_PER_ROUND))

    anyio.run(measure)
    off = statistics.median(samples["off"])
    figures: Figures = {"off_us": round(off, 2)}
    for name, target in TARGETS_MS.items():
        median = statistics.median(samples[name])
        cost_ms = round((median - off) / 1000, 4)
        figures[name] = {"per_call_us": round(median, 2), "cost_ms": cost_ms, "target_ms": target}
        figures[name]["met"] = cost_ms <= target
    # The same, end to end: three stdio servers called in turns (server CPU time per call).
    figures["servers"] = measure_servers(scratch, preset.rounds, preset.calls * 3)
    return figures
