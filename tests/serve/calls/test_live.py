"""The live protocol, end to end with the SDK client in both eras: progress and log
notifications from a script's stderr, and cancellation that stops the script."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPDeprecationWarning

from tests.conftest import MakeTool, pids_alive
from tests.serve.http_server import http_server, mcp_client
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio

STEPS = """\
#!/bin/bash
# Tool: steps
# Description: Three steps with progress
for i in 1 2 3; do
  echo "PROGRESS $i/3 step $i" >&2
  sleep 0.2
done
echo finished
"""

FLOOD = """\
#!/bin/bash
# Tool: flood
# Description: Thousands of progress lines at once
for i in $(seq 1 5000); do echo "PROGRESS $i/5000"; done >&2
echo flooded
"""

# The conformance suite's progress tool: three values at once, before its result.
QUICK = """\
#!/bin/bash
# Tool: quick
# Description: Three progress values in one write
printf 'PROGRESS 0/100\nPROGRESS 50/100\nPROGRESS 100/100\n' >&2
echo quick
"""

CHATTY = """\
#!/bin/bash
# Tool: chatty
# Description: One log line per level
echo "TRACE t" >&2
echo "DEBUG d" >&2
echo "INFO i" >&2
echo "WARNING w" >&2
echo "ERROR e" >&2
echo "not a log line" >&2
echo done
"""

SLEEPER = """\
#!/bin/bash
# Tool: sleeper
# Description: Sleeps until stopped
sleep 30 &
echo $! >> "$PIDS"
echo $$ >> "$PIDS"
wait
echo "should never be seen"
"""


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    for name, body in (
        ("steps", STEPS),
        ("quick", QUICK),
        ("flood", FLOOD),
        ("chatty", CHATTY),
        ("sleeper", SLEEPER),
    ):
        make_tool(f"{name}/run.sh", body)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


class Progress:
    def __init__(self) -> None:
        self.updates: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.updates.append((progress, total, message))


class Logs:
    def __init__(self) -> None:
        self.lines: list[tuple[str, Any]] = []

    async def __call__(self, params: types.LoggingMessageNotificationParams) -> None:
        self.lines.append((params.level, params.data))


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_progress_lines_become_progress_notifications_in_order(served: Path, mode: str) -> None:
    progress = Progress()
    async with connect(served, mode) as client:
        result = await client.call_tool("steps", {}, progress_callback=progress)
    assert text_of(result) == "finished"
    assert progress.updates == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_calls_first_progress_values_each_arrive_before_its_result(
    served: Path, tmp_path: Path, mode: str
) -> None:
    # Printed in one write, so no timing lets the throttle send each one: the first
    # PROGRESS_BURST values of a call are sent as they are, none coalesced.
    over_stdio, over_http = Progress(), Progress()
    async with connect(served, mode) as client:
        assert text_of(await client.call_tool("quick", {}, progress_callback=over_stdio)) == "quick"
        assert over_stdio.updates == [(0, 100, None), (50, 100, None), (100, 100, None)]
    state = tmp_path / "state"
    state.mkdir()
    with http_server(served, state) as running:
        async with mcp_client(running, mode) as client:
            assert text_of(await client.call_tool("quick", {}, progress_callback=over_http)) == "quick"
            assert over_http.updates == [(0, 100, None), (50, 100, None), (100, 100, None)]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_flood_of_progress_is_throttled(served: Path, mode: str) -> None:
    progress = Progress()
    async with connect(served, mode) as client:
        result = await client.call_tool("flood", {}, progress_callback=progress)
    assert text_of(result) == "flooded"
    values = [update[0] for update in progress.updates]
    assert 1 <= len(values) < 50
    assert values == sorted(set(values))  # strictly increasing
    assert values[-1] == 5000


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_no_progress_without_a_progress_token(served: Path, mode: str) -> None:
    seen: list[Any] = []

    async def on_message(message: Any) -> None:
        seen.append(message)

    async with connect(served, mode, client={"message_handler": on_message}) as client:
        await client.call_tool("steps", {})
    assert not [m for m in seen if isinstance(m, types.ProgressNotification)]


async def test_handshake_era_logs_follow_the_clients_level(served: Path) -> None:
    default, warnings_only = Logs(), Logs()
    async with connect(served, "legacy", client={"logging_callback": default}) as client:
        await client.call_tool("chatty", {})
    async with connect(served, "legacy", client={"logging_callback": warnings_only}) as client:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.set_logging_level("warning")
        await client.call_tool("chatty", {})
    assert default.lines == [("info", "i"), ("warning", "w"), ("error", "e")]
    assert warnings_only.lines == [("warning", "w"), ("error", "e")]


async def test_modern_era_logs_need_the_request_opt_in(served: Path) -> None:
    opted_in, silent = Logs(), Logs()
    async with connect(served, "auto", client={"logging_callback": opted_in, "log_level": "debug"}) as client:
        await client.call_tool("chatty", {})
    async with connect(served, "auto", client={"logging_callback": silent}) as client:
        await client.call_tool("chatty", {})
    # TRACE has no MCP level of its own: it arrives as debug.
    assert opted_in.lines == [("debug", "t"), ("debug", "d"), ("info", "i"), ("warning", "w"), ("error", "e")]
    assert silent.lines == []


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_cancelled_call_stops_its_process_group(served: Path, mode: str, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    async with connect(served, mode, PIDS=str(pids)) as client:
        async with anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "sleeper", {})
            while not pids.exists() or len(pids.read_text().split()) < 2:
                await anyio.sleep(0.05)
            group.cancel_scope.cancel()
        assert pids_alive([int(pid) for pid in pids.read_text().split()]) == []
        # The session is fine, and the cancelled call left its trace in the audit log.
        assert text_of(await client.call_tool("chatty", {})) == "done"
    records = [json.loads(line) for line in (served / "logs" / "audit.jsonl").read_text().splitlines()]
    assert [(r["tool"], r["error"]) for r in records] == [("sleeper", "cancelled"), ("chatty", None)]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_progress_and_logs_over_http(served: Path, tmp_path: Path, mode: str) -> None:
    progress, logs = Progress(), Logs()
    state = tmp_path / "state"
    state.mkdir()
    with http_server(served, state) as running:
        async with mcp_client(running, mode, logging_callback=logs, log_level="info") as client:
            await client.call_tool("steps", {}, progress_callback=progress)
            await client.call_tool("chatty", {})
    assert progress.updates == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    assert logs.lines == [("info", "i"), ("warning", "w"), ("error", "e")]
