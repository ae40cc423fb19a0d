"""Containment in the default configuration (tool calls unconfined, no bubblewrap): no
process a call starts outlives the call, nor the server, even a SIGKILLed one.

Issue 24: a tool that double-forked into a new session with an empty environment
outlived its call (the run's marker went with the environment, the session with
setsid), and a SIGKILLed server left its running tools behind. Real server, real SDK
client, real processes; what is left is found by a marker in argv, over all of /proc.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

SHELL_ESCAPE = """\
#!/bin/sh
# Tool: shell_escape
# Description: Leave a sleep behind in a new session with an empty environment
setsid env -i sh -c '"$0" 300 &' {sleeper} </dev/null >/dev/null 2>&1
echo started
"""

PYTHON_DAEMON = """\
#!{python}
# Tool: python_daemon
# Description: Leave a classic double-forked daemon behind, with an empty environment
import os

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.execve({sleeper!r}, [{sleeper!r}, "300"], {{}})
    os._exit(0)
os.wait()
print("started")
"""

HANG = """\
#!/bin/sh
# Tool: hang
# Description: Leave a sleep behind in a new session, then wait under sh
setsid env -i sh -c '"$0" 300 &' {sleeper} </dev/null >/dev/null 2>&1
{sleeper} 301
"""


def processes_named(marker: str) -> list[int]:
    """The pids of live processes whose command line mentions `marker` (zombies are gone)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                if marker.encode() not in cmdline.read():
                    continue
            with open(f"/proc/{entry}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] != "Z":
                    found.append(int(entry))
        except OSError:
            continue
    return found


def wait_gone(marker: str, grace: float = 5.0) -> list[int]:
    """What is still running with `marker` after up to `grace` seconds (a killed process
    dies when the kernel next runs it)."""
    deadline = time.monotonic() + grace
    while (left := processes_named(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.fixture
def sleeper(tmp_path: Path) -> Iterator[str]:
    """A copy of sleep whose path carries a marker unique to the test."""
    path = tmp_path / f"tk-left-behind-{uuid.uuid4().hex[:12]}"
    sleep = shutil.which("sleep")
    assert sleep is not None
    path.symlink_to(sleep)
    yield str(path)
    for pid in processes_named(path.name):  # never leave one behind, even when the test fails
        os.kill(pid, signal.SIGKILL)


def build_default(tools_dir: Path, config_dir: Path) -> None:
    """Discover and build with the default server settings: calls run unconfined."""
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "server.json").write_text(json.dumps({}))
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, report.errors
    build_catalog(config_dir, tools_dir)


@pytest.mark.anyio
@pytest.mark.parametrize("tool", ["shell_escape", "python_daemon"])
async def test_a_process_that_leaves_its_session_and_environment_dies_with_its_call(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, sleeper: str, tool: str
) -> None:
    make_tool("shell_escape.sh", SHELL_ESCAPE.format(sleeper=sleeper))
    make_tool("python_daemon.py", PYTHON_DAEMON.format(python=sys.executable, sleeper=sleeper))
    await anyio.to_thread.run_sync(build_default, tools_dir, config_dir)
    async with connect(config_dir, "legacy") as client:
        result = await client.call_tool(tool, {})
        assert text_of(result) == "started"
        assert wait_gone(Path(sleeper).name) == []  # the call is over; the server still runs


@pytest.mark.anyio
async def test_a_sigkilled_server_leaves_no_descendant_behind(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, sleeper: str
) -> None:
    make_tool("hang.sh", HANG.format(sleeper=sleeper))
    await anyio.to_thread.run_sync(build_default, tools_dir, config_dir)
    marker = Path(sleeper).name
    running: list[int] = []
    left: list[int] | None = None

    async def call_hang(client: Client) -> None:
        with contextlib.suppress(Exception):  # however the SDK reports a server that died
            await client.call_tool("hang", {})

    with contextlib.suppress(Exception):  # closing the client of a dead server
        async with connect(config_dir, "legacy") as client, anyio.create_task_group() as calls:
            calls.start_soon(call_hang, client)
            deadline = time.monotonic() + 20
            while len(running := processes_named(marker)) < 2 and time.monotonic() < deadline:
                await anyio.sleep(0.05)
            os.kill(server_pid(config_dir), signal.SIGKILL)
            left = await anyio.to_thread.run_sync(wait_gone, marker)
            calls.cancel_scope.cancel()
    assert len(running) == 2  # the sleep left behind and the one the call waits on, both under sh
    assert left == []


def server_pid(config_dir: Path) -> int:
    """The pid of the `toolkiln serve` process serving `config_dir`."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    argv = cmdline.read().split(b"\0")
            except OSError:
                continue
            if b"serve" in argv and os.fsencode(config_dir) in argv:
                return int(entry)
    raise AssertionError(f"no server of {config_dir} is running")


WORKER_DAEMON = '''"""Leave a double-forked daemon behind, with an empty environment, from a warm worker."""
import os

INPUTS = {{}}

def execute(params):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.execve({sleeper!r}, [{sleeper!r}, "300"], {{}})
        os._exit(0)
    os.wait()
    return "started"
'''


@pytest.mark.anyio
async def test_a_daemon_started_on_a_warm_worker_dies_with_its_call_and_the_worker_lives_on(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, sleeper: str
) -> None:
    make_tool("worker_daemon.py", WORKER_DAEMON.format(sleeper=sleeper))
    await anyio.to_thread.run_sync(build_default, tools_dir, config_dir)
    async with connect(config_dir, "legacy") as client:
        for _ in range(2):  # the second call: the same worker still answers
            result = await client.call_tool("worker_daemon", {})
            assert text_of(result) == "started"
            assert wait_gone(Path(sleeper).name) == []
