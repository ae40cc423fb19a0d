"""Long-running calls as MCP tasks (SEP-2663; serve/tasks/): started over stdio and
HTTP by a real server, polled, answered, cancelled, expired, and found failed after
the server that ran them stopped."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import signal
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeTool, tune_tool
from tests.serve.http_server import http_server
from tests.serve.tasks_wire import RpcError, StdioWire, http_request, read_pids, wait_for, wait_gone
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

SLOW = """\
#!/usr/bin/env python3
# Tool: slow
# Description: Works for a while, saying how far it got
# @param seconds: how long to work (type: number, required: false, default: 0)
import json, sys, time
seconds = json.loads(sys.stdin.read() or "{}").get("seconds", 0)
print("INFO starting the work", file=sys.stderr, flush=True)
print("PROGRESS 1/2 halfway", file=sys.stderr, flush=True)
time.sleep(seconds)
print(f"worked {seconds} s")
"""
LINGER = """\
#!/usr/bin/env python3
# Tool: linger
# Description: Starts a child, says where it runs, and waits for a long time
import os, pathlib, subprocess, sys, time
child = subprocess.Popen(["sleep", "300"])
pathlib.Path("pids").write_text(f"{os.getpid()} {child.pid}")
print("PROGRESS 1/100 waiting", file=sys.stderr, flush=True)
time.sleep(300)
"""
ONLY_TASK = """\
#!/bin/sh
# Tool: only_task
# Description: Runs only as a task
echo done
"""


@pytest.fixture
def project(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    for name, body in {
        "slow.py": SLOW,
        "linger.py": LINGER,
        "only_task.sh": ONLY_TASK,
    }.items():
        make_tool(name, body)
    assert not discover_tools(tools_dir, config_dir).errors
    settings = {
        "slow": {"timeout_seconds": 120},  # over a minute: a task by default
        "linger": {"timeout_seconds": 600},
        "only_task": {"task": "required"},
    }
    for name, keys in settings.items():
        tune_tool(config_dir, name, **keys)
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.fixture
def stdio(project: Path, tmp_path: Path) -> Iterator[StdioWire]:
    server = StdioWire(project, tmp_path / "home", tmp_path / "server.log")
    yield server
    server.close()


def _text(task: dict[str, Any]) -> str:
    return "\n".join(block["text"] for block in task["result"]["content"])


def test_a_task_over_stdio_is_created_polled_and_completed(stdio: StdioWire, tmp_path: Path) -> None:
    created = stdio.request("tools/call", {"name": "slow", "arguments": {"seconds": 1}})
    assert created["resultType"] == "task" and created["status"] == "working"
    assert created["ttlMs"] > 120_000 and created["pollIntervalMs"] > 0
    # 192 random bits in hex: never a leading `-`, which `toolkiln tasks show ID` would take for an option
    assert re.fullmatch(r"[0-9a-f]{48}", created["taskId"])
    # It exists before the answer came: the very next request finds it.
    first = stdio.request("tasks/get", {"taskId": created["taskId"]})
    assert first["taskId"] == created["taskId"] and first["resultType"] == "complete"
    done = wait_for(stdio.request, created["taskId"], "completed")
    assert _text(done) == "worked 1 s" and done["result"]["isError"] is False
    assert done["_meta"]["toolkiln/progress"] == {"progress": 1, "total": 2, "message": "halfway"}
    assert {"level": "info", "message": "starting the work"} in done["_meta"]["toolkiln/logs"]
    # The store holds results, which may hold secrets: private file, private folder.
    store = tmp_path / "home" / "toolkiln" / "tasks.sqlite3"
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.parent.stat().st_mode) == 0o700


def test_a_client_without_the_extension_gets_plain_calls_and_no_task_methods(stdio: StdioWire) -> None:
    plain = stdio.request("tools/call", {"name": "slow", "arguments": {"seconds": 0}}, capabilities={})
    assert plain["resultType"] == "complete" and "taskId" not in plain
    with pytest.raises(RpcError) as refused:
        stdio.request("tasks/get", {"taskId": "anything"}, capabilities={})
    assert refused.value.code == -32021
    with pytest.raises(RpcError) as required:
        stdio.request("tools/call", {"name": "only_task", "arguments": {}}, capabilities={})
    assert required.value.code == -32021
    assert required.value.data == {
        "requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    }
    with pytest.raises(RpcError) as unknown:
        stdio.request("tasks/get", {"taskId": "no-such-task"})
    assert unknown.value.code == -32602


def test_cancelling_a_task_stops_its_whole_process_group(stdio: StdioWire, tools_dir: Path) -> None:
    task_id = stdio.request("tools/call", {"name": "linger", "arguments": {}})["taskId"]
    script, child = read_pids(tools_dir)
    ack = stdio.request("tasks/cancel", {"taskId": task_id})
    assert "status" not in ack and ack["resultType"] == "complete"
    assert wait_for(stdio.request, task_id, "cancelled", "completed", "failed")["status"] == "cancelled"
    wait_gone(script, child)
    # Cancelling again is the same empty acknowledgement.
    assert stdio.request("tasks/cancel", {"taskId": task_id})["resultType"] == "complete"


def test_a_task_over_http_is_polled_and_seen_by_no_other_principal(project: Path, tmp_path: Path) -> None:
    state = tmp_path / "xdg" / "toolkiln"  # the HTTP server's state folder, and a stdio server's
    state.mkdir(parents=True)
    with http_server(project, state) as server:
        call = functools.partial(http_request, server.mcp_url, server.token)
        task_id = call("tools/call", {"name": "slow", "arguments": {"seconds": 0.5}})["taskId"]
        assert _text(wait_for(call, task_id, "completed")) == "worked 0.5 s"
        with pytest.raises(RpcError) as mismatch:  # Mcp-Name must carry the task id
            call("tasks/get", {"taskId": task_id}, headers={"Mcp-Name": "another"})
        assert mismatch.value.code == -32020
        assert (state / "tasks.sqlite3").exists()
        # A stdio server of the same state folder serves another principal: not found.
        stdio = StdioWire(project, tmp_path / "xdg", tmp_path / "stdio.log")
        try:
            with pytest.raises(RpcError) as hidden:
                stdio.request("tasks/get", {"taskId": task_id})
            assert hidden.value.code == -32602
        finally:
            stdio.close()


def test_a_finished_task_is_removed_when_its_time_to_live_is_over(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    make_tool("only_task.sh", ONLY_TASK)
    assert not discover_tools(tools_dir, config_dir).errors
    tune_tool(config_dir, "only_task", task="required", timeout_seconds=1)
    (config_dir / "server.json").write_text(json.dumps({"tasks": {"keep_seconds": 0.5}}))
    build_catalog(config_dir, tools_dir)
    server = StdioWire(config_dir, tmp_path / "home", tmp_path / "server.log")
    try:
        created = server.request("tools/call", {"name": "only_task", "arguments": {}})
        assert created["ttlMs"] == 1500
        assert _text(wait_for(server.request, created["taskId"], "completed")) == "done"
        deadline = time.monotonic() + 30
        with pytest.raises(RpcError) as expired:
            while time.monotonic() < deadline:
                server.request("tasks/get", {"taskId": created["taskId"]})
                time.sleep(0.1)
        assert expired.value.code == -32602
    finally:
        server.close()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_a_task_whose_server_stopped_is_reported_failed_by_the_next_one(
    project: Path, tools_dir: Path, tmp_path: Path, signum: int
) -> None:
    home, log = tmp_path / "home", tmp_path / "server.log"
    first = StdioWire(project, home, log)
    task_id = first.request("tools/call", {"name": "linger", "arguments": {}})["taskId"]
    script, child = read_pids(tools_dir)
    first.process.send_signal(signum)
    first.process.wait(timeout=30)
    first.close()
    if signum == signal.SIGKILL:  # nothing was left to stop them: the test does
        for pid in (script, child):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
    wait_gone(script, child)
    second = StdioWire(project, home, log)
    try:
        task = second.request("tasks/get", {"taskId": task_id})
        assert task["status"] == "failed"
        assert task["error"]["code"] == -32603 and "stopped" in task["error"]["message"]
        assert "stopped" in task["statusMessage"]
    finally:
        second.close()
