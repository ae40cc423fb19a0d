"""What confinement (bubblewrap) costs: a confined and an unconfined echo, and a confined
and an unconfined `--help` probe, run in turns in one process (no server in the way)."""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import anyio

from benchmarks.rounds import Figures, Preset
from toolkiln.process import Confinement, confinement_problem, run_process

ECHO = """#!/bin/sh
if [ "$1" = --help ]; then echo '{"description": "echo"}'; echo '{}' >&2; exit 0; fi
echo hi
"""


def measure_confinement(scratch: Path, preset: Preset) -> Figures:
    problem = confinement_problem()
    if problem is not None:
        return {"skipped": problem}
    tools = scratch / "confinement" / "tools"
    tools.mkdir(parents=True)
    script = tools / "echo.sh"
    script.write_text(ECHO)
    script.chmod(0o755)
    home = os.environ.get("HOME", "/root")
    variants = {
        "call_unconfined": ([str(script)], None),
        "call_confined": ([str(script)], Confinement(network=True, read_only=False)),
        "call_confined_strict": ([str(script)], Confinement(network=False, writable=(str(tools),))),
        "probe_unconfined": ([str(script), "--help"], None),
        "probe_confined": (
            [str(script), "--help"],
            Confinement(network=False, hidden=("/home", "/root", home), visible=(str(tools),)),
        ),
    }
    samples: dict[str, list[float]] = {name: [] for name in variants}

    async def measure() -> None:
        for _ in range(preset.calls):
            for name, (argv, confinement) in variants.items():  # in turns: the same load for each
                started = time.perf_counter()
                await run_process(argv, timeout=10, cwd=tools, confinement=confinement)
                samples[name].append((time.perf_counter() - started) * 1000)

    anyio.run(measure)
    figures: Figures = {
        name: {"p50_ms": round(statistics.median(values), 3)} for name, values in samples.items()
    }
    for kind in ("call", "probe"):
        figures[f"{kind}_cost_ms"] = round(
            figures[f"{kind}_confined"]["p50_ms"] - figures[f"{kind}_unconfined"]["p50_ms"], 3
        )
    return figures
