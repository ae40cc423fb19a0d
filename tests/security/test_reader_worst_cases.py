"""No file can hold a reader for long: every reader of untrusted text (each discovery
dialect, the sidecar, `--help` output, JSONC, the configs, the audit log) reads each of
its worst cases within READ_BOUND (docs/security.md, "Readers of untrusted text").

Found in issue 24: a 140 KB Script Kit script with `"import " * 20000` in a comment took
165 s of CPU in `discover --list`, as its import pattern was tried from every `import`.
The time is CPU time of each file, measured in a child process: a correctness bound
(linear work), not a benchmark.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import child_env
from tests.security.reader_cases import ENTRY_POINTS, SCRIPTS, TEXT_READERS, read_bound, write_cases

# Each file's CPU time: at most this many seconds per MiB, plus a floor for the work any
# file costs (its folder scanned, its models validated), plus 10 µs a line (PER_LINE).
SECONDS_PER_MIB = 1.0
FLOOR_SECONDS = 0.1
EXPECTED_CLAIMANTS = {
    "annotations": "annotations.read", "annotations-comment": "annotations.read", "kit": "kit.read",
    "annotations-field": "annotations.read", "kit-field": "kit.read", "argc-field": "argc.read",
    "kit-schema": "kit.read", "scriptkit": "scriptkit.read", "scriptkit-header": "help_json.read",
    "scriptkit-params": "scriptkit.read",
    "raycast": "raycast.read", "argc": "argc.read", "python-module": "python.execute",
    "python-function": "python.run_function", "python-google": "python.run_function",
    "python-raw": "by_hand.python_argv", "python-script": "python.script",
    "python-argparse": "python.execute", "python-click": "python.execute", "python-typer": "python.execute",
    "python-fire": "python.execute", "python-docopt": "python.execute", "node-commander": "node_cli.read",
    "node-yargs": "node_cli.read", "node-parseargs": "node_cli.read", "js-function": "javascript.function",
    "js-agent": "javascript.function", "fallback-text": "help_json.read", "shell": "shell.read",
    "sidecar": "sidecar.read",
    "node-argv": "by_hand.node_argv",
    "entry-point-pyproject": "entry_points.reader", "entry-point-package": "entry_points.reader",
}  # fmt: skip


@pytest.mark.timeout(900)  # ~10 s of CPU; a shared machine, or a reader gone quadratic, takes longer
def test_every_reader_reads_its_worst_cases_in_linear_time(tmp_path: Path) -> None:
    cases = write_cases(tmp_path)
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    bound = [str(SECONDS_PER_MIB), str(FLOOR_SECONDS)]
    command = [sys.executable, "-m", "tests.security.reader_cases", str(tmp_path), *bound]
    done = subprocess.run(command, capture_output=True, text=True, env=child_env(), timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(results) == len(cases)
    assert {r["reader"] for r in results} == {*SCRIPTS, "sidecar", *ENTRY_POINTS, *TEXT_READERS}
    claimed = {r["reader"]: r["claimant"] for r in results if not r["token"] and r["kind"] == "tools"}
    assert {
        reader: name and name.removeprefix("toolkiln.").removeprefix("conventions.")
        for reader, name in claimed.items()
    } == EXPECTED_CLAIMANTS
    slow = [
        f"{r['reader']} with {r['token']!r} x {r['bytes']} bytes: {r['seconds']:.2f} s"
        for r in results
        if r["seconds"] > read_bound(r["bytes"], r["lines"], SECONDS_PER_MIB, FLOOR_SECONDS)
    ]
    assert not slow, "read past the bound:\n" + "\n".join(slow)
