"""What the commands print: colour only on a terminal and never with NO_COLOR, and the
tool author's commands (new, doctor, config) as light as discover, build, list, call."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MakeTool, child_env

BROKEN = "#!/bin/bash\n# Tool: b\n# Description: d\n# @param n: N (type: strin)\n"
RED = "\x1b[31m"
COLOUR = re.compile(r"\x1b\[[0-9;]*m")  # SGR; the progress bar's cursor codes are not colour


def run_on_a_terminal(args: list[str], env: dict[str, str], cwd: Path) -> str:
    """Run a real toolkiln with stdout and stderr on a pseudo-terminal; all it printed."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "toolkiln", *args],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env=env,
        cwd=cwd,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    process.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode()


@pytest.mark.parametrize("command", ["doctor", "discover"])
def test_colour_on_a_terminal_and_not_with_no_color(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, command: str
) -> None:
    make_tool("b/run.sh", BROKEN)
    args = [command, "--tools-dir", str(tools_dir), "--config-dir", str(config_dir)]
    env = {key: value for key, value in child_env().items() if key not in ("NO_COLOR", "FORCE_COLOR")}
    cwd = tools_dir.parent
    coloured = run_on_a_terminal(args, env, cwd)
    assert f"{RED}" in coloured and "error" in coloured
    plain = run_on_a_terminal(args, {**env, "NO_COLOR": "1"}, cwd)
    assert not COLOUR.search(plain) and "error:" in plain
    piped = subprocess.run(
        [sys.executable, "-m", "toolkiln", *args], capture_output=True, text=True, env=env, cwd=cwd
    )
    assert not COLOUR.search(piped.stdout + piped.stderr) and "error:" in piped.stdout + piped.stderr


def test_new_doctor_and_config_never_import_the_sdk(tmp_path: Path) -> None:
    folders = ["--tools-dir", str(tmp_path / "tools"), "--config-dir", str(tmp_path / "config")]
    code = f"""
import sys
from toolkiln.cli import cli
for command in (["new", "greet"], ["doctor"], ["config", "cursor"], ["config", "vscode", "--http"]):
    try:
        cli([*command, *{folders!r}])
    except SystemExit as done:
        assert done.code in (0, None), (command, done.code)
print("mcp" in sys.modules, file=sys.stderr)
"""
    env = {**child_env(), "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip().splitlines()[-1] == "False"
