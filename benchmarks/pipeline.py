"""What needs no server: `toolkiln discover` and `toolkiln build` of 1,000 generated
tools, each timed as a whole process, as a user runs them."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks.ordinary import write_ordinary
from benchmarks.projects import TOOLKILN, measured_env, write_generated, write_script
from benchmarks.rounds import Figures, Preset, median

DISCOVERED = 1000  # tools in the discovery and build benchmarks


def measure_discovery(root: Path, preset: Preset) -> Figures:
    """`toolkiln discover` and `toolkiln build` of 1,000 generated tools, each a whole process."""
    mixed, help_json = root / "discover-mixed", root / "discover-help-json"
    write_generated(mixed / "tools", annotated=DISCOVERED // 2, help_json=DISCOVERED // 2)
    write_generated(help_json / "tools", annotated=0, help_json=DISCOVERED)
    by_hand = _write_by_hand(root / "discover-python-by-hand")
    ordinary = root / "discover-ordinary"
    write_ordinary(ordinary / "tools", DISCOVERED)
    edited = mixed / "tools" / "help-json" / "tool-0000.sh"
    steps: dict[str, tuple[str, Callable[[], float]]] = {
        "cold_mixed": ("cold, 500 annotations + 500 help-json", lambda: _discover(mixed, fresh=True)),
        "unchanged_mixed": ("again, nothing changed", lambda: _discover(mixed)),
        "one_changed_mixed": ("again, one help-json script edited", lambda: _discover(mixed, edit=edited)),
        "build_mixed": ("`toolkiln build` of the 1,000", lambda: _toolkiln_seconds("build", mixed)),
        "cold_help_json": ("cold, 1,000 help-json", lambda: _discover(help_json, fresh=True)),
        "help_json_alone": (
            "the same 1,000 scripts' `--help` alone, 4 at a time by Popen (no toolkiln)",
            lambda: _probes_alone(help_json / "tools"),
        ),
        "cold_python_by_hand": (
            "cold, 1,000 Python scripts reading sys.argv by hand",
            lambda: _discover(by_hand, fresh=True),
        ),
        "cold_ordinary": (
            "cold, 1,000 ordinary scripts (shell, Python and Node by hand, stdin)",
            lambda: _discover(ordinary, fresh=True),
        ),
        "unchanged_ordinary": ("again, nothing changed", lambda: _discover(ordinary)),
    }
    runs: dict[str, list[float]] = {key: [] for key in steps}
    for _ in range(preset.discovery_rounds):
        for key, (_, step) in steps.items():
            runs[key].append(round(step(), 3))
    return {
        key: {"label": label, "median_s": median(runs[key]), "rounds_s": runs[key]}
        for key, (label, _) in steps.items()
    }


# An ordinary script: no framework, its words read by hand (conventions/by_hand/python_argv.py).
BY_HAND = """import sys

if __name__ == "__main__":
    if len(sys.argv) < 3:
        print("Usage: convert_NUMBER.py <input pdf> <output directory> [dpi]")
        sys.exit(1)
    pdf_path = sys.argv[1]
    output_dir = sys.argv[2]
    dpi = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    print(pdf_path, output_dir, dpi)
"""


def _write_by_hand(project: Path) -> Path:
    for number in range(DISCOVERED):
        (project / "tools").mkdir(parents=True, exist_ok=True)
        (project / "tools" / f"convert_{number:04d}.py").write_text(
            BY_HAND.replace("NUMBER", f"{number:04d}")
        )
    return project


def _discover(project: Path, *, fresh: bool = False, edit: Path | None = None) -> float:
    if fresh:
        _set_aside(project / "config")
    if edit is not None:
        write_script(edit, edit.read_text() + "# edited\n")
    seconds = _toolkiln_seconds("discover", project)
    configs = len(list((project / "config" / "tools").glob("*.json")))
    if configs != DISCOVERED:
        raise RuntimeError(f"discover wrote {configs} configs in {project}, expected {DISCOVERED}")
    return seconds


def _probes_alone(tools: Path) -> float:
    """Seconds to run every script of `tools` with `--help`, as many at once as discover
    runs probes on this machine: what the scripts themselves cost a cold discovery."""
    scripts = sorted(tools.rglob("*.sh"))
    jobs = max(4, 2 * (os.cpu_count() or 1))
    started = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(_help_of, scripts))
    return time.perf_counter() - started


def _help_of(script: Path) -> None:
    subprocess.run([script, "--help"], capture_output=True, check=True)


def _set_aside(config: Path) -> None:
    """Move the last round's configs out of the way, left for the benchmark's folder to be
    removed with. Deleting them made the next round slower than any user's first run: on
    an ext4 without a journal (this machine's), creating a file scans past every inode
    deleted in the last seconds (`recently_deleted`, 0.85 ms a config under `perf`)."""
    if config.exists():
        spent = config.parent / "spent"
        spent.mkdir(exist_ok=True)
        config.rename(spent / f"config-{len(list(spent.iterdir()))}")


def _toolkiln_seconds(command: str, project: Path) -> float:
    argv = [TOOLKILN, command, "--tools-dir", str(project / "tools"), "--config-dir", str(project / "config")]
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env=measured_env())
    return time.perf_counter() - started
