"""What two replicas sharing a token folder leave behind and say (issue 32's smaller items):

- `server.json` names a replica that still runs when another one stops;
- a stateless 2025-11-25 request does not log `Terminating session: None`;
- every audit record names its server by host, pid and instance (replicas may write
  their logs side by side, from several machines);
- `toolkiln tasks --config-dir DIR` is `toolkiln tasks list --config-dir DIR`.
"""

from __future__ import annotations

import json
import signal
import socket
from pathlib import Path

import anyio
import httpx2
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import MakeTool
from tests.serve.replicas.test_replicas import replica
from toolkiln.build.merge import build_catalog
from toolkiln.cli import cli
from toolkiln.discover import discover_tools

ECHO = """#!/bin/bash
# Tool: echo
# Description: Print a message back
# @param message: What to print (type: string, required: true)
echo "$message"
"""


@pytest.fixture
def project(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("echo.sh", ECHO)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


async def _call_2025(port: int, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(
            streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http), mode="legacy"
        ) as client,
    ):
        result = await client.call_tool("echo", {"message": "hello"})
        assert not result.is_error


def test_two_replicas_leave_a_discovery_file_and_name_themselves(project: Path, tmp_path: Path) -> None:
    token_file = tmp_path / "state" / "token"
    server_file = token_file.parent / "server.json"
    with replica(project, token_file, tmp_path / "a") as first:
        with replica(project, token_file, tmp_path / "b") as second:
            assert json.loads(server_file.read_text())["pid"] == second.process.pid
            token = token_file.read_text().strip()
            for server in (first, second):
                anyio.run(_call_2025, server.port, token)
            second.process.send_signal(signal.SIGTERM)
            second.process.wait(timeout=30)  # how it exits is the drain's (SIGTERM)
        # The one still running is found again; nothing was removed from under it.
        assert json.loads(server_file.read_text())["pid"] == first.process.pid
        records = {server.process.pid: server.audited_calls() for server in (first, second)}
    assert not server_file.exists()  # the last one to stop removes it
    for pid, calls in records.items():
        [call] = calls
        assert call["server"]["pid"] == pid and call["server"]["host"] == socket.gethostname()
        assert len(call["server"]["instance"]) == 24
    assert records[first.process.pid][0]["server"] != records[second.process.pid][0]["server"]
    for folder in ("a", "b"):
        log = (tmp_path / folder / "stderr").read_text()
        assert "Terminating session: None" not in log


def test_tasks_takes_the_options_of_tasks_list(project: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    for words in (["tasks"], ["tasks", "list"]):
        answer = CliRunner().invoke(
            cli, [*words, "--config-dir", str(project), "--state-dir", str(state), "--json"]
        )
        assert answer.exit_code == 0, answer.output
        assert json.loads(answer.output) == []
    shown = CliRunner().invoke(cli, ["tasks", "--help"])
    assert shown.exit_code == 0 and "toolkiln tasks show ID" in shown.output
