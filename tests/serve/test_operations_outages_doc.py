"""Every command of docs/operations.md's "Replicas: outages and probes" runs, as written,
against a real `toolkiln serve --http` bound to the address the section names (its
port swapped for a free one), from a project folder with `config/`."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import MakeTool, child_env
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

DOC = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
SECTION = "## Replicas: outages and probes"
ADDRESS, DOC_PORT = "127.0.0.11", "8765"
ECHO = """#!/bin/bash
# Tool: echo
# Description: Print a message back
# @param message: What to print (type: string, required: true)
echo "$message"
"""


def section_commands() -> list[str]:
    text = DOC.read_text()
    body = text[text.index(SECTION) + len(SECTION) :]
    body = body.split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", body, flags=re.DOTALL)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((ADDRESS, 0))
        return int(probe.getsockname()[1])


def test_every_command_of_the_section_runs(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    make_tool("echo.sh", ECHO)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    commands = section_commands()
    assert len(commands) == 3, commands
    port = str(_free_port())
    env = {
        **child_env(),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    serve = [
        sys.executable, "-m", "toolkiln", "serve", "--http", "--host", ADDRESS, "--port", port,
        "--config-dir", str(config_dir), "--tools-dir", str(tools_dir),
    ]  # fmt: skip
    with (tmp_path / "server.log").open("wb") as log:
        server = subprocess.Popen(serve, stdout=subprocess.DEVNULL, stderr=log, env=env)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection((ADDRESS, int(port)), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, (
                    tmp_path / "server.log"
                ).read_text()
                time.sleep(0.05)
        outputs = []
        for command in commands:
            ran = subprocess.run(
                ["bash", "-c", command.replace(DOC_PORT, port)],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert ran.returncode == 0, (command, ran.stdout, ran.stderr)
            outputs.append(ran.stdout)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert '"status":"ok"' in outputs[0].replace(" ", "")
    assert outputs[1].strip() == "200"
    assert outputs[2].strip() == "[]"
