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
    "annotations": "annotations", "annotations-comment": "annotations", "kit": "kit",
    "annotations-field": "annotations", "kit-field": "kit", "argc-field": "argc",
    "kit-schema": "kit", "scriptkit": "scriptkit", "scriptkit-header": "help_json",
    "scriptkit-params": "scriptkit",
    "raycast": "raycast", "argc": "argc", "python-module": "python_module",
    "python-function": "python_function", "python-google": "python_function",
    "python-raw": "python_argv", "python-script": "python_script",
    "python-argparse": "python_module", "python-click": "python_module", "python-typer": "python_module",
    "python-fire": "python_module", "python-docopt": "python_module", "node-commander": "node_cli",
    "node-yargs": "node_cli", "node-parseargs": "node_cli", "js-function": "js_function",
    "js-agent": "js_function", "fallback-text": "help_json", "shell": "shell_script", "sidecar": "sidecar",
    "entry-point-pyproject": "reader", "entry-point-package": "reader",
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
        reader: name and name.rpartition(".")[2] for reader, name in claimed.items()
    } == EXPECTED_CLAIMANTS
    slow = [
        f"{r['reader']} with {r['token']!r} x {r['bytes']} bytes: {r['seconds']:.2f} s"
        for r in results
        if r["seconds"] > read_bound(r["bytes"], r["lines"], SECONDS_PER_MIB, FLOOR_SECONDS)
    ]
    assert not slow, "read past the bound:\n" + "\n".join(slow)
