"""The per-step costs of a plain `tools/call` (benchmarks/steps.py) as a table."""

from __future__ import annotations

from typing import Any

from benchmarks.markdown import table

INTRO = (
    "Each step of a plain call of the echo tool, measured alone in one process that has the "
    "stdio server's modules loaded (in-process steps: the median of rounds of 200; processes: "
    "the median of the preset's calls, taken in turns). A regression shows in the step where it "
    "happens. Confinement's cost per call is its own section's (a call in bubblewrap against "
    "one started by Popen).\n\n"
)
DIFFERENCES = {
    "spawn": ("over_floor_us", "over a bare Popen"),
    "runner_call": ("over_spawn_us", "over its process"),
    "service_call": ("over_runner_us", "over the runner's call"),
}


def steps_table(steps: dict[str, Any]) -> str:
    rows = []
    for name, figures in steps.items():
        extra = "-"
        if name in DIFFERENCES:
            field, what = DIFFERENCES[name]
            extra = f"{figures[field]:+.0f} µs {what}"
        rows.append((figures["label"], f"{figures['median_us']:.1f}", extra))
    return INTRO + table(["step of a call", "µs (median)", "difference"], rows)
