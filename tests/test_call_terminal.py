"""`toolkiln call` on a terminal (cli/asking.py): an interactive tool's questions are
asked there. A real pseudo-terminal, a real process."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import MakeTool, child_env
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

ASKS = """\
#!/usr/bin/env python3
# Tool: asks
# Description: Asks for a name and a count, and where it runs
import json, sys

json.loads(sys.stdin.readline())
form = {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string", "title": "Your name"},
    "count": {"type": "integer", "description": "How many", "default": 2}}}
print("ELICIT " + json.dumps({"message": "Tell me", "requestedSchema": form}), file=sys.stderr, flush=True)
answer = json.loads(sys.stdin.readline())
print("ROOTS", file=sys.stderr, flush=True)
roots = json.loads(sys.stdin.readline())
print("SAMPLE {}", file=sys.stderr, flush=True)
model = json.loads(sys.stdin.readline())
print(json.dumps({"answer": answer, "roots": roots, "model": model}))
"""


def test_questions_are_asked_on_the_terminal(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("asks.py", ASKS)
    assert not discover_tools(tools_dir, config_dir).errors
    config_file = config_dir / "tools" / "asks.json"
    config = json.loads(config_file.read_text())
    config["script_config"]["interactive"] = True
    config_file.write_text(json.dumps(config))
    build_catalog(config_dir, tools_dir)
    controller, terminal = pty.openpty()
    command = [sys.executable, "-m", "toolkiln", "call", "--config-dir", str(config_dir), "asks"]
    process = subprocess.Popen(
        command, stdin=terminal, stdout=subprocess.PIPE, stderr=terminal, env=child_env(), cwd=tools_dir
    )
    os.close(terminal)
    seen = _until(controller, b"Your name: ")
    os.write(controller, b"Ada\n")
    seen += _until(controller, b"How many [2]: ")
    os.write(controller, b"\n")
    output, _ = process.communicate(timeout=30)
    os.close(controller)
    result = json.loads(output)
    assert b"asks asks: Tell me" in seen
    assert result["answer"] == {"action": "accept", "content": {"name": "Ada", "count": 2}}
    assert result["roots"]["roots"] == [{"uri": tools_dir.as_uri(), "name": tools_dir.name}]
    assert "has no model" in result["model"]["error"]


def _until(fd: int, prompt: bytes, timeout: float = 30) -> bytes:
    seen = b""
    deadline = time.monotonic() + timeout
    while prompt not in seen:
        assert time.monotonic() < deadline, f"no {prompt!r} in {seen!r}"
        seen += os.read(fd, 1024)
    return seen
