"""What needs a server: `tools/call` latency and throughput, cold start, memory under a
flood of output, and hot reload; the floor, the reference and toolkiln side by side.
"""

from __future__ import annotations

import contextlib
import functools
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types

from benchmarks.projects import ANNOTATED, measured_env, python_project, served_project, write_script
from benchmarks.rounds import Figures, Preset, box, median, percentiles, rotated
from benchmarks.targets import HAS_FASTMCP, Caller, Target, Workspace, cold_start, cpu_seconds, open_target

WARM_UP_CALLS = 10
OUTSTANDING = 8  # calls in flight for the throughput figure
BURST = 50  # throughput calls per burst; the variants take turns burst by burst
MB = 1_000_000
WATCH_PAUSE = 0.5  # seconds between two edits under --watch


# FastMCP beside them: the framework a user would pick instead (when installed).
VARIANTS = ("reference", "toolkiln", *(("fastmcp",) if HAS_FASTMCP else ()))
CALL_TARGETS = [
    Target("floor"),
    Target("process"),
    *(Target(variant, transport) for transport in ("stdio", "http") for variant in VARIANTS),
]
# The floor of a cold start: a Python that imports the SDK's server modules (the cyclic GC
# paused, as `toolkiln serve` does) and exits. Every server on the SDK pays it.
SDK_IMPORT = "import gc; gc.disable(); import mcp.types, mcp.server.lowlevel, mcp.server.stdio"
# Over HTTP: the SDK's Streamable HTTP server modules, starlette and uvicorn instead of stdio.
SDK_HTTP_IMPORT = (
    "import gc; gc.disable(); import mcp.types, mcp.server.lowlevel, "
    "mcp.server.streamable_http_manager, starlette.applications, uvicorn"
)


def start_targets(preset: Preset) -> list[Target]:
    return [
        Target(variant, transport, tools)
        for transport in ("stdio", "http")
        for tools in (10, preset.served_tools)
        for variant in VARIANTS
    ]


@functools.cache
def served(root: Path, large: int) -> Workspace:
    """The configs every server benchmark serves, made once per run."""
    return Workspace({count: served_project(root / f"served-{count}", count) for count in (10, large)})


def measure_calls(root: Path, preset: Preset) -> Figures:
    """`tools/call` of echo: latency of sequential calls, and throughput with 8 outstanding.

    Every round starts all the servers and interleaves them call by call (and burst by
    burst for throughput), so that a noisy neighbour weighs on each variant alike.
    """
    workspace = served(root, preset.served_tools)
    rounds: dict[Target, list[Figures]] = {target: [] for target in CALL_TARGETS}
    samples: dict[Target, list[float]] = {target: [] for target in CALL_TARGETS}
    for _ in range(preset.rounds):
        figures, latencies = anyio.run(_call_round, workspace, preset.calls)
        for target in CALL_TARGETS:
            rounds[target].append(figures[target])
            samples[target].extend(latencies[target])
    return {
        target.key: {
            "label": target.label,
            "variant": target.variant,
            "transport": target.transport,
            **{name: median(r[name] for r in rounds[target]) for name in rounds[target][0]},
            "rounds": rounds[target],
            "box_ms": box(samples[target]),
        }
        for target in CALL_TARGETS
    }


async def _call_round(
    workspace: Workspace, calls: int
) -> tuple[dict[Target, Figures], dict[Target, list[float]]]:
    async with contextlib.AsyncExitStack() as stack:
        callers = {t: await stack.enter_async_context(open_target(t, workspace)) for t in CALL_TARGETS}
        for caller in callers.values():
            for index in range(WARM_UP_CALLS):
                await _echo(caller, f"warm-up {index}")
        cpu = {target: cpu_seconds(caller.pid) for target, caller in callers.items() if caller.pid}
        latencies: dict[Target, list[float]] = {target: [] for target in CALL_TARGETS}
        for index in range(calls):
            for target in rotated(CALL_TARGETS, index):
                started = time.perf_counter()
                await _echo(callers[target], f"hello {index}")
                latencies[target].append(time.perf_counter() - started)
        busy = dict.fromkeys(CALL_TARGETS, 0.0)
        bursts = max(1, calls // BURST)
        for burst in range(bursts):
            for target in rotated(CALL_TARGETS, burst):
                busy[target] += await _burst(callers[target], BURST)
        figures = {
            target: {
                **percentiles(latencies[target]),
                "throughput_per_s": round(bursts * BURST / busy[target], 1),
            }
            for target in CALL_TARGETS
        }
        for target, before in cpu.items():  # the servers' own CPU time, their tools' aside
            used = cpu_seconds(callers[target].pid or 0) - before
            figures[target]["server_cpu_ms_per_call"] = round(used * 1000 / (calls + bursts * BURST), 3)
        return figures, latencies


async def _burst(caller: Caller, calls: int) -> float:
    """Seconds for `calls` calls made by OUTSTANDING concurrent callers."""
    pending = iter(range(calls))

    async def worker() -> None:
        for index in pending:
            await _echo(caller, f"outstanding {index}")

    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for _ in range(OUTSTANDING):
            group.start_soon(worker)
    return time.perf_counter() - started


async def _echo(caller: Caller, message: str) -> None:
    await _call_echo(caller, "echo", message)


def measure_cold_start(root: Path, preset: Preset) -> Figures:
    """Spawning the server to its first `tools/list` answer (after one unmeasured start
    of each, which writes the .pyc files and warms the page cache)."""
    workspace = served(root, preset.served_tools)
    targets = start_targets(preset)
    runs: dict[Target, list[float]] = {target: [] for target in targets}
    floor: list[float] = []
    http_floor: list[float] = []
    for target in targets:
        anyio.run(cold_start, target, workspace)
    for round_ in range(preset.starts):
        for target in rotated(targets, round_):
            runs[target].append(round(anyio.run(cold_start, target, workspace) * 1000, 1))
        floor.append(round(_sdk_import(SDK_IMPORT) * 1000, 1))
        http_floor.append(round(_sdk_import(SDK_HTTP_IMPORT) * 1000, 1))
    figures = {
        target.key: {"label": target.label, "median_ms": median(runs[target]), "rounds_ms": runs[target]}
        for target in targets
    }
    label = "floor: a Python importing the SDK's server modules, GC paused (no server)"
    http_label = (
        "floor: a Python importing the SDK's Streamable HTTP server and uvicorn, GC paused (no server)"
    )
    return {
        **figures,
        "sdk_import_stdio_10": {"label": label, "median_ms": median(floor), "rounds_ms": floor},
        "sdk_import_http_10": {"label": http_label, "median_ms": median(http_floor), "rounds_ms": http_floor},
    }


def _sdk_import(code: str) -> float:
    """Seconds from spawning a Python that runs `code` (imports) to its exit."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=measured_env())
    return time.perf_counter() - started


def measure_flood(root: Path, preset: Preset) -> Figures:
    """Peak RSS (VmHWM) of `toolkiln serve` before and after a tool writes 1 GB to stdout."""
    workspace = served(root, preset.served_tools)
    targets = [Target("toolkiln", "stdio"), Target("toolkiln", "http")]
    runs: dict[Target, list[Figures]] = {target: [] for target in targets}
    for round_ in range(preset.flood_rounds):
        for target in rotated(targets, round_):
            runs[target].append(anyio.run(_flood_once, target, workspace))
    return {
        target.key: {
            "label": target.label,
            **{name: median(r[name] for r in runs[target]) for name in runs[target][0]},
            "rounds": runs[target],
        }
        for target in targets
    }


async def _flood_once(target: Target, workspace: Workspace) -> Figures:
    async with open_target(target, workspace) as caller:
        pid = int(await caller.call_tool("server-pid", {}))
        before = _peak_rss(pid)
        started = time.perf_counter()
        text = await caller.call_tool("flood", {})
        seconds = time.perf_counter() - started
        after = _peak_rss(pid)
    if "[output truncated" not in text:
        raise RuntimeError("the flood's output was not cut")
    return {
        "peak_before_mb": round(before / MB, 1),
        "peak_after_mb": round(after / MB, 1),
        "growth_mb": round((after - before) / MB, 1),
        "seconds": round(seconds, 2),
    }


def _peak_rss(pid: int) -> int:
    """VmHWM of a process, in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmHWM for pid {pid}")


PYTHON_TOOLS = ("echo", "py-warm", "py-fresh")


def measure_python_worker(root: Path, preset: Preset) -> Figures:
    """A Python `execute()` tool on a warm worker, against the same code run as a fresh
    `python` process per call and against the shell echo; one toolkiln server (stdio)
    serves all three, called in turn."""
    config = python_project(root / "python-worker")
    workspace = Workspace({3: config})
    samples: dict[str, list[float]] = {name: [] for name in PYTHON_TOOLS}
    rounds: dict[str, list[Figures]] = {name: [] for name in PYTHON_TOOLS}
    for _ in range(preset.rounds):
        latencies = anyio.run(_python_round, workspace, preset.calls)
        for name in PYTHON_TOOLS:
            samples[name].extend(latencies[name])
            rounds[name].append(percentiles(latencies[name]))
    labels = {
        "echo": "shell echo (echo.sh, a process per call)",
        "py-warm": "Python execute() on a warm worker",
        "py-fresh": "the same Python code, a fresh python process per call",
    }
    figures: Figures = {
        name.replace("py-", ""): {
            "label": labels[name],
            **{field: median(r[field] for r in rounds[name]) for field in rounds[name][0]},
            "box_ms": box(samples[name]),
        }
        for name in PYTHON_TOOLS
    }
    shell = figures["echo"]["p50_ms"]
    for name in ("warm", "fresh"):
        figures[name]["ratio"] = round(figures[name]["p50_ms"] / shell, 3)
    return figures


async def _python_round(workspace: Workspace, calls: int) -> dict[str, list[float]]:
    latencies: dict[str, list[float]] = {name: [] for name in PYTHON_TOOLS}
    async with open_target(Target("toolkiln", "stdio", 3), workspace) as caller:
        for index in range(WARM_UP_CALLS):
            for name in PYTHON_TOOLS:
                await _call_echo(caller, name, f"warm-up {index}")
        for index in range(calls):
            for name in rotated(list(PYTHON_TOOLS), index):
                started = time.perf_counter()
                await _call_echo(caller, name, f"hello {index}")
                latencies[name].append(time.perf_counter() - started)
    return latencies


async def _call_echo(caller: Caller, tool: str, message: str) -> None:
    text = await caller.call_tool(tool, {"message": message})
    if text != message:
        raise RuntimeError(f"{tool} answered {text!r} to {message!r}")


def measure_watch(root: Path, preset: Preset) -> Figures:
    """From saving an edited tool to a client's tool list showing it, under `serve --watch`:
    the client lists the tools again on each `tools/list_changed` notification."""
    config = served_project(root / "watched", 10)
    tools = config.parent / "tools"
    target = Target("toolkiln", "stdio", 10, ("--watch", "--tools-dir", str(tools)))
    runs = anyio.run(_watch_edits, target, Workspace({10: config}), preset.watch_edits)
    label = "edit of a tool's description to the client's new tool list (stdio, 10 tools)"
    return {"edit_to_list": {"label": label, "median_s": median(runs), "rounds_s": runs}}


async def _watch_edits(target: Target, workspace: Workspace, edits: int) -> list[float]:
    notices = 0

    async def on_message(message: Any) -> None:
        nonlocal notices
        notices += isinstance(message, types.ToolListChangedNotification)

    script = workspace.tools_dir / "annotated-0000" / "run.sh"
    runs = []
    async with open_target(target, workspace, message_handler=on_message) as caller:
        for edit in range(edits):
            await anyio.sleep(WATCH_PAUSE)  # separate edits, or the watcher batches them
            description = f"Edited {edit} times"
            seen = notices
            write_script(
                script, ANNOTATED.replace("Annotated tool number NUMBER", description).replace("NUMBER", "0")
            )
            saved = time.perf_counter()
            with anyio.fail_after(30):
                while (await caller.describe_tools()).get("annotated-0000") != description:
                    while notices == seen:
                        await anyio.sleep(0.002)
                    seen = notices
            runs.append(round(time.perf_counter() - saved, 3))
    return runs
