"""Run the benchmarks: `make bench` (under 10 minutes on 2 cores) or `make bench-quick`.

    .venv/bin/python -m benchmarks [--quick] [--only NAME ...] [--merge] [--report-only]

The full run writes benchmarks/results/latest.json, docs/benchmarks.md and
docs/benchmarks-latency.png; --quick (and --only) write benchmarks/results/quick.json
and print the report; `--only NAME --merge` measures NAME with the full preset and puts
its figures into latest.json and the docs in place of the last full run's, with a line
saying when and where they were measured. Figures only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import toolkiln
from benchmarks import catalog_search, confinement, oauth, pipeline, relay, serving, steps, tasks, telemetry
from benchmarks.report import draw_chart, render_markdown
from benchmarks.rounds import FULL, QUICK, Figures, Preset

# In the order they run.
MEASUREMENTS: dict[str, Callable[[Path, Preset], Figures]] = {
    "calls": serving.measure_calls,
    "catalog_search": catalog_search.measure_catalog_search,
    "cold_start": serving.measure_cold_start,
    "confinement": confinement.measure_confinement,
    "discovery": pipeline.measure_discovery,
    "flood": serving.measure_flood,
    "oauth": oauth.measure_oauth,
    "python_worker": serving.measure_python_worker,
    "relay": relay.measure_relay,
    "steps": steps.measure_steps,
    "tasks": tasks.measure_tasks,
    "telemetry": telemetry.measure_telemetry,
    "watch": serving.measure_watch,
}
ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
DOCS = ROOT / "docs"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the smaller run of make bench-quick")
    parser.add_argument("--only", action="append", choices=list(MEASUREMENTS), help="run only these")
    parser.add_argument(
        "--merge", action="store_true", help="with --only: put the figures into latest.json and the docs"
    )
    parser.add_argument("--report-only", action="store_true", help="rewrite the docs from latest.json")
    options = parser.parse_args()
    if options.report_only:
        write_docs(json.loads((RESULTS / "latest.json").read_text()))
        return
    if options.merge and (options.quick or not options.only):
        parser.error("--merge takes --only NAME (the full preset): quick figures would not match the others")
    preset = QUICK if options.quick else FULL
    results = run(preset, options.only or list(MEASUREMENTS))
    if options.merge:
        merged = merge_results(json.loads((RESULTS / "latest.json").read_text()), results)
        write_json(RESULTS / "latest.json", merged)
        write_docs(merged)
        print(
            f"merged {', '.join(options.only)} into {RESULTS / 'latest.json'}, {DOCS / 'benchmarks.md'}",
            file=sys.stderr,
        )
    elif options.quick or options.only:
        write_json(RESULTS / "quick.json", results)
        print(render_markdown(results, chart=None))
    else:
        write_json(RESULTS / "latest.json", results)
        write_docs(results)
        print(f"wrote {RESULTS / 'latest.json'}, {DOCS / 'benchmarks.md'}", file=sys.stderr)


def run(preset: Preset, names: list[str]) -> dict[str, Any]:
    started = time.perf_counter()
    results: dict[str, Any] = {"meta": describe_run(preset)}
    seconds = results["meta"]["seconds"] = {}
    with tempfile.TemporaryDirectory(prefix="toolkiln-bench-") as scratch:
        for name in names:
            print(f"measuring {name}...", file=sys.stderr, flush=True)
            step_started = time.perf_counter()
            results[name] = MEASUREMENTS[name](Path(scratch), preset)
            seconds[name] = round(time.perf_counter() - step_started, 1)
    results["meta"]["duration_s"] = round(time.perf_counter() - started, 1)
    results["meta"]["load_average"]["end"] = round(os.getloadavg()[0], 2)
    return results


def merge_results(latest: dict[str, Any], alone: dict[str, Any]) -> dict[str, Any]:
    """`latest` with the sections measured `alone`, each noting its own run (`NAME_run`)."""
    meta = alone["meta"]
    merged = dict(latest)
    for name, figures in alone.items():
        if name != "meta":
            merged[name] = figures
            merged[f"{name}_run"] = {
                "command": meta["command"],
                "date": meta["date"],
                "commit": meta["versions"]["commit"],
                "seconds": meta["seconds"][name],
                "load_average": meta["load_average"],
            }
    return merged


def describe_run(preset: Preset) -> dict[str, Any]:
    python = os.path.relpath(sys.executable, ROOT)
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "preset": preset.name,
        "command": f"{preset.make} ({' '.join([python, '-m', 'benchmarks', *sys.argv[1:]])})",
        "settings": {key: value for key, value in vars(preset).items() if key not in ("name", "make")},
        "load_average": {"start": round(os.getloadavg()[0], 2)},
        "machine": {
            "cpu": _cpu_model(),
            "cores": os.cpu_count(),
            "ram_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
            "kernel": platform.release(),
        },
        "versions": {
            "python": platform.python_version(),
            "mcp": importlib.metadata.version("mcp"),
            "toolkiln": toolkiln.__version__,
            "commit": _git_commit(),
        },
    }


def write_docs(results: dict[str, Any]) -> None:
    chart = DOCS / "benchmarks-latency.png"
    draw_chart(results, chart)
    (DOCS / "benchmarks.md").write_text(render_markdown(results, chart=chart.name))


def write_json(path: Path, results: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2) + "\n")


def _cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _git_commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    commit = git("rev-parse", "--short=12", "HEAD") or "unknown"
    return f"{commit} (with uncommitted changes)" if git("status", "--porcelain") else commit


if __name__ == "__main__":
    main()
