"""run_command runs confined by default where bubblewrap works: even a command the
allowlist admits cannot write, reach the network or leave a process behind."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from tests.runner.test_command import make_project
from toolkiln.model import RunCommandSettings
from toolkiln.process import confinement_problem

pytestmark = pytest.mark.skipif(confinement_problem() is not None, reason=f"{confinement_problem()}")


def test_an_admitted_command_cannot_write_even_inside_its_root(tmp_path: Path) -> None:
    assert RunCommandSettings().confinement.mode == "auto"  # run_command's default
    runner = make_project(tmp_path, {"allow": ["sh"], "confinement": {"mode": "auto"}})
    script = "echo planted > planted.sh; echo written > /tmp/x && cat /tmp/x"
    result = anyio.run(runner.call, "run_command", {"command": f"sh -c '{script}'"})
    assert not (tmp_path / "work" / "planted.sh").exists()
    assert "Read-only file system" in result.text
    assert "written" in result.text  # its /tmp is its own, and writable
    compiled = json.loads((tmp_path / "config" / "tools.json").read_text())["run_command"]["confinement"]
    assert compiled["mode"] == "auto" and compiled["network"] is False


def test_a_required_run_command_is_refused_without_bubblewrap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = make_project(tmp_path, {"allow": ["ls"], "confinement": {"mode": "required"}})
    monkeypatch.setenv("TOOLKILN_BWRAP", "")
    result = anyio.run(runner.call, "run_command", {"command": "ls"})
    assert result.is_error and "must run confined" in result.text
