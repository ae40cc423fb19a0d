"""`serve --stdio` loads what it serves with, and nothing of HTTP: the dashboard, the
HTTP app and its guards, the relay and Redis load only when configured (issue 27). A
fresh interpreter serves one handshake, a `tools/list` and a `tools/call`, then says
which of those modules it imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import MakeTool, child_env

ECHO = """\
#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Print a message back"}'
  echo '{"message": {"description": "What to print", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
printf '%s\\n' "$message"
"""

# The SDK imports its own HTTP transport wherever it is used (mcp.server.lowlevel does):
# these are toolkiln's HTTP side and what only it needs.
HTTP_ONLY = (
    "toolkiln.serve.http.app",
    "toolkiln.serve.dashboard",
    "toolkiln.serve.http.guard",
    "toolkiln.serve.http.connections",
    "toolkiln.serve.http.events",
    "toolkiln.serve.replicas.event_store",
    "toolkiln.serve.replicas.resume",
    "toolkiln.serve.http.forwarded",
    "toolkiln.serve.http.rpc",
    "toolkiln.serve.replicas.mailbox",
    "toolkiln.serve.replicas.relayed_calls",
    "redis",
    "h11",  # uvicorn's HTTP/1.1 protocol: only a listening server needs it
)
ROOTS = ("toolkiln", "redis", "h11")

MESSAGES = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"message": "hi"}},
    },
]


def test_serve_stdio_imports_nothing_of_http(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    make_tool("echo.sh", ECHO)
    folders = ["--tools-dir", str(tools_dir), "--config-dir", str(config_dir)]
    for command in ("discover", "build"):
        subprocess.run([sys.executable, "-m", "toolkiln", command, *folders], check=True, env=child_env())
    report = tmp_path / "modules.json"
    code = f"""
import json, sys
from toolkiln.cli import cli
try:
    cli(["serve", "--stdio", *{folders!r}])
except SystemExit as done:
    assert done.code in (0, None), done.code
with open({str(report)!r}, "w") as file:
    json.dump(sorted(name for name in sys.modules if name.split(".")[0] in {ROOTS!r}), file)
"""
    server = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    assert server.stdin is not None and server.stdout is not None
    answers = {}
    for message in MESSAGES:
        server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()
        if "id" in message:  # its answer before the next: stdin ends only after the call's
            answer = json.loads(server.stdout.readline())
            answers[answer["id"]] = answer
    _, stderr = server.communicate(timeout=60)
    assert server.returncode == 0, stderr
    assert [tool["name"] for tool in answers[2]["result"]["tools"]] == ["echo"]
    assert answers[3]["result"]["content"][0]["text"] == "hi"
    loaded = set(json.loads(report.read_text()))
    assert "toolkiln.serve.stdio.transport" in loaded
    assert [name for name in loaded if name.split(".")[0] in ROOTS
            and any(name == m or name.startswith(m + ".") for m in HTTP_ONLY)] == []  # fmt: skip
