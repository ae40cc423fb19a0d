"""The same stdio server three ways, called in turns: telemetry off, metrics on (a
Prometheus port), tracing on with the `always_off` sampler. Its figure is the server's
own CPU time per call (its tools' aside), which a busy machine disturbs far less than
latency; the latency p50 is shown beside it. /proc counts CPU time in ticks of 10 ms,
so a round makes enough calls that a tick is a small part of one call's figure."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from statistics import median

import anyio

from benchmarks.projects import served_project
from benchmarks.rounds import Figures, rotated
from benchmarks.targets import Caller, Target, Workspace, cpu_seconds, free_port, open_target

WARM_UP = 20


def server_variants() -> dict[str, Target]:
    return {
        "off": Target("toolkiln", "stdio", 10),
        "metrics": Target("toolkiln", "stdio", 10, ("--prometheus-port", str(free_port()))),
        "tracing_sampled_out": Target("toolkiln", "stdio", 10, ("--tracing",)),
    }


@contextlib.contextmanager
def _sampled_out() -> Iterator[None]:
    """OpenTelemetry's variables of the measured servers: nothing sampled, nowhere to send."""
    saved = {key: os.environ.get(key) for key in ("OTEL_TRACES_SAMPLER", "OTEL_EXPORTER_OTLP_ENDPOINT")}
    os.environ["OTEL_TRACES_SAMPLER"] = "always_off"
    os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = f"http://127.0.0.1:{free_port()}"
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def measure_servers(scratch: Path, rounds: int, calls: int) -> Figures:
    workspace = Workspace({10: served_project(scratch / "telemetry-served", 10)})
    cpu: dict[str, list[float]] = {}
    p50: dict[str, list[float]] = {}
    with _sampled_out():
        for _ in range(rounds):
            figures = anyio.run(_round, workspace, server_variants(), calls)
            for name, (cpu_ms, latency_ms) in figures.items():
                cpu.setdefault(name, []).append(cpu_ms)
                p50.setdefault(name, []).append(latency_ms)
    off = median(cpu["off"])
    return {
        name: {
            "server_cpu_ms_per_call": round(median(cpu[name]), 4),
            "cpu_cost_ms": round(median(cpu[name]) - off, 4),
            "p50_ms": round(median(p50[name]), 3),
        }
        for name in cpu
    }


async def _round(
    workspace: Workspace, variants: dict[str, Target], calls: int
) -> dict[str, tuple[float, float]]:
    async with contextlib.AsyncExitStack() as stack:
        callers = {
            name: await stack.enter_async_context(open_target(t, workspace)) for name, t in variants.items()
        }
        for caller in callers.values():
            for index in range(WARM_UP):
                await _echo(caller, index)
        before = {name: cpu_seconds(caller.pid or 0) for name, caller in callers.items()}
        latencies: dict[str, list[float]] = {name: [] for name in callers}
        for index in range(calls):
            for name in rotated(list(callers), index):
                started = time.perf_counter()
                await _echo(callers[name], index)
                latencies[name].append(time.perf_counter() - started)
        return {
            name: (
                (cpu_seconds(caller.pid or 0) - before[name]) * 1000 / calls,
                median(latencies[name]) * 1000,
            )
            for name, caller in callers.items()
        }


async def _echo(caller: Caller, index: int) -> None:
    answer = await caller.call_tool("echo", {"message": f"hello {index}"})
    if answer != f"hello {index}":
        raise RuntimeError(f"echo answered {answer!r}")
