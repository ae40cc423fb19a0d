"""`toolkiln tasks` (cli/tasking.py) run as a process against the task store of real
servers: it lists a stdio server's tasks, shows a result, cancels a running task from
outside the server (the script's processes gone), and reports a task whose server was
killed as failed; all without importing the mcp SDK."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import child_env
from tests.serve.tasks.test_tasks import project  # noqa: F401  (the fixture)
from tests.serve.tasks_wire import StdioWire, read_pids, wait_for, wait_gone
from toolkiln.serve.tasks.sqlite import SqliteTaskStore
from toolkiln.serve.tasks.store import STORE_FILE


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"  # XDG_CONFIG_HOME: the state folder is home/toolkiln


@pytest.fixture
def stdio(project: Path, home: Path, tmp_path: Path) -> Iterator[StdioWire]:  # noqa: F811
    server = StdioWire(project, home, tmp_path / "server.log")
    yield server
    server.close()


def toolkiln_tasks(home: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = {**child_env(), "XDG_CONFIG_HOME": str(home), "NO_COLOR": "1"}
    command = [sys.executable, "-m", "toolkiln", "tasks", *arguments]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)


def test_tasks_lists_shows_and_cancels_a_servers_tasks(stdio: StdioWire, home: Path, tools_dir: Path) -> None:
    done_id = stdio.request("tools/call", {"name": "slow", "arguments": {"seconds": 0.2}})["taskId"]
    wait_for(stdio.request, done_id, "completed")
    running_id = stdio.request("tools/call", {"name": "linger", "arguments": {}})["taskId"]
    script, child = read_pids(tools_dir)

    listing = toolkiln_tasks(home)
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    assert lines[0].split() == ["ID", "TOOL", "STATUS", "AGE", "CLIENT", "SERVER", "PROGRESS"]
    assert f"{socket.gethostname()} pid {stdio.process.pid}" in lines[2]  # by host and pid
    assert lines[1].split()[:3] == [done_id[:8], "slow", "completed"]
    assert lines[2].split()[:3] == [running_id[:8], "linger", "working"]
    assert lines[2].endswith("1/100 waiting") and "stdio" in lines[2]

    active = json.loads(toolkiln_tasks(home, "list", "--active", "--json").stdout)
    assert [(task["taskId"], task["status"]) for task in active] == [(running_id, "working")]
    assert "result" not in active[0]  # a listing carries no results

    shown = toolkiln_tasks(home, "show", done_id[:10])
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == "worked 0.2 s\n"  # the result on stdout, the rest on stderr
    assert "status  completed" in shown.stderr and "INFO starting the work" in shown.stderr

    # Cancelled from outside the server: the server sees it and stops the whole group,
    # though the script prints nothing more (the server looks at the store itself).
    cancelled = toolkiln_tasks(home, "cancel", running_id[:8])
    assert cancelled.returncode == 0, cancelled.stderr
    assert cancelled.stdout.startswith(f"Cancelled task {running_id[:8]} (linger)")
    wait_gone(script, child)
    task = stdio.request("tasks/get", {"taskId": running_id})
    assert task["status"] == "cancelled"
    assert task["statusMessage"] == "Cancelled from the command line (toolkiln tasks cancel)."
    again = toolkiln_tasks(home, "cancel", running_id)
    assert again.returncode == 1 and "has already ended: cancelled" in again.stderr
    unknown = toolkiln_tasks(home, "show", "no-such-task")
    assert unknown.returncode == 1 and "no task 'no-such-task'" in unknown.stderr


def test_a_task_whose_server_was_killed_is_listed_failed(
    stdio: StdioWire, home: Path, tools_dir: Path
) -> None:
    task_id = stdio.request("tools/call", {"name": "linger", "arguments": {}})["taskId"]
    script, child = read_pids(tools_dir)
    stdio.process.send_signal(signal.SIGKILL)
    stdio.process.wait(timeout=30)
    for pid in (script, child):  # nothing was left to stop them: the test does
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    wait_gone(script, child)
    [task] = json.loads(toolkiln_tasks(home, "list", "--json").stdout)
    assert task["taskId"] == task_id and task["status"] == "failed"
    assert "stopped before it finished" in task["statusMessage"]
    shown = toolkiln_tasks(home, "show", task_id)
    assert shown.returncode == 1 and "status  failed" in shown.stderr


def test_tasks_without_a_store_says_so_and_reads_one_without_the_sdk(tmp_path: Path) -> None:
    empty = toolkiln_tasks(tmp_path)
    assert empty.returncode == 0 and empty.stdout.startswith("No tasks in ")
    assert not (tmp_path / "toolkiln").exists()  # a listing makes nothing
    SqliteTaskStore(tmp_path / "toolkiln" / STORE_FILE, max_tasks=10, max_bytes=10_000).close()
    code = """
import sys
from toolkiln.cli import cli
for command in (["tasks"], ["tasks", "list", "--json"]):
    try:
        cli(command)
    except SystemExit as done:
        assert done.code in (0, None), (command, done.code)
print("mcp" in sys.modules, file=sys.stderr)
"""
    env = {**child_env(), "XDG_CONFIG_HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip().splitlines()[-1] == "False"
