"""`toolkiln serve` as a real subprocess, driven by the SDK's real client over stdio,
in both protocol eras: the 2025-11-25 handshake and 2026-07-28 stateless requests."""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.conftest import MakeTool, pids_alive
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("mode", ["legacy", "auto"])]

ECHO = """\
#!/bin/bash
if [ "$1" = "--help" ]; then
  echo '{"description": "Print a message back", "title": "Echo"}'
  echo '{"message": {"description": "What to print", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
printf '%s\\n' "$message"
"""

ADD = """\
#!/bin/bash
# Tool: add
# Description: Add two integers and report as JSON
# @param a: First (type: integer, required: true, min: 0, max: 100)
# @param b: Second (type: integer, default: 1)
# @param mode: Output mode (type: string, enum: json|text, default: json)
echo "INFO adding" >&2
echo "{\\"sum\\": $((a + b)), \\"argv\\": \\"$*\\"}"
"""

FAIL = """\
#!/bin/bash
if [ "$1" = "--help" ]; then echo '{"description": "Always not found"}'; echo '{}' >&2; exit 0; fi
echo "looked everywhere"
echo "ERROR no such thing" >&2
exit 4
"""

HANG = """\
#!/bin/bash
if [ "$1" = "--help" ]; then echo '{"description": "Sleeps forever"}'; echo '{}' >&2; exit 0; fi
sleep 300 &
echo $! >> "$PIDS"
echo $$ >> "$PIDS"
# The server started the spawner, which started this script (its parent's parent).
[ -n "$SERVER_PID" ] && read -r _ _ _ server _ < /proc/$PPID/stat && echo $server > "$SERVER_PID"
wait
"""

FLOOD = """\
#!/bin/bash
if [ "$1" = "--help" ]; then echo '{"description": "Prints 300 MB"}'; echo '{}' >&2; exit 0; fi
read -r _ _ _ server _ < /proc/$PPID/stat  # the server started the spawner, which started this script
echo $server > "$SERVER_PID"
head -c 300000000 /dev/zero | tr '\\0' 'x'
"""


@pytest.fixture
def served(tmp_path: Path, make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    """A tools folder with one tool per behaviour, discovered and built; returns config_dir."""
    make_tool("echo.sh", ECHO)
    make_tool("add/run.sh", ADD)
    make_tool("fail.sh", FAIL)
    make_tool("hang.sh", HANG)
    make_tool("flood.sh", FLOOD)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors
    hang_config = config_dir / "tools" / "hang.json"
    config = json.loads(hang_config.read_text())
    config["script_config"]["timeout_seconds"] = 1
    hang_config.write_text(json.dumps(config))
    add_config = config_dir / "tools" / "add.json"
    config = json.loads(add_config.read_text())
    config["script_config"].update(title="Adder", read_only=True, idempotent=True, open_world=False)
    add_config.write_text(json.dumps(config))
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_lists_every_tool_with_its_schema(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert sorted(tools) == ["add", "echo", "fail", "flood", "hang"]
    add = tools["add"].input_schema
    assert add["type"] == "object"
    assert add["additionalProperties"] is False
    assert add["required"] == ["a"]
    assert add["properties"]["a"] == {"type": "integer", "description": "First", "minimum": 0, "maximum": 100}
    assert add["properties"]["mode"]["enum"] == ["json", "text"]
    assert tools["echo"].title == "Echo"
    # What the user set in a per-tool config becomes the tool's title and annotation hints.
    assert tools["add"].title == "Adder"
    hints = tools["add"].annotations
    assert hints is not None
    assert (hints.title, hints.read_only_hint, hints.idempotent_hint, hints.open_world_hint) == (
        "Adder",
        True,
        True,
        False,
    )
    assert hints.destructive_hint is None
    assert tools["echo"].annotations is not None and tools["echo"].annotations.read_only_hint is None
    assert tools["echo"].description == "Print a message back"


async def test_calls_return_stdout_and_structured_content(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        echo = await client.call_tool("echo", {"message": "héllo wörld"})
        add = await client.call_tool("add", {"a": 2})
    assert not echo.is_error
    assert text_of(echo) == "héllo wörld"
    assert echo.structured_content is None
    assert not add.is_error
    # Defaults are applied, and an annotated script also gets --name=value arguments.
    assert add.structured_content == {"sum": 3, "argv": "--a=2 --b=1 --mode=json"}


async def test_invalid_arguments_list_every_violation_and_run_nothing(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        result = await client.call_tool("add", {"a": 500, "mode": "xml", "extra": True})
    assert result.is_error
    text = text_of(result)
    assert "unknown argument 'extra'" in text
    assert "a: 500 must be at most 100" in text
    assert 'mode: "xml" must be one of ["json", "text"]' in text


async def test_a_missing_required_argument_is_refused(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        result = await client.call_tool("echo", {})
    assert result.is_error
    assert "'message' is required" in text_of(result)


async def test_unknown_tool_is_a_protocol_error(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        with pytest.raises(MCPError, match="Unknown tool: 'nope'") as raised:
            await client.call_tool("nope", {})
    assert raised.value.code == -32602


async def test_a_failing_script_is_a_tool_error_with_its_exit_code(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        result = await client.call_tool("fail", {})
    assert result.is_error
    text = text_of(result)
    assert "exit code 4 (not found)" in text
    assert "looked everywhere" in text
    assert "ERROR no such thing" in text
    assert result.meta is not None and result.meta["toolkiln/exitCode"] == 4


async def test_a_hanging_script_times_out_and_leaves_no_process(
    served: Path, mode: str, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    async with connect(served, mode, PIDS=str(pids)) as client:
        result = await client.call_tool("hang", {})
        assert result.is_error
        assert "timed out after 1 s" in text_of(result)
        recorded = [int(pid) for pid in pids.read_text().split()]
        assert len(recorded) == 2
        assert pids_alive(recorded) == []
        # The server is still fine after a timeout.
        assert text_of(await client.call_tool("echo", {"message": "still here"})) == "still here"


async def test_shutdown_stops_the_calls_in_flight(served: Path, mode: str, tmp_path: Path) -> None:
    pids, server_pid = tmp_path / "pids", tmp_path / "server_pid"
    failures: list[MCPError] = []

    async def call_hang(client: Client) -> None:
        try:
            await client.call_tool("hang", {})
        except MCPError as error:  # the server goes away mid-call
            failures.append(error)

    server = connect(served, mode, PIDS=str(pids), SERVER_PID=str(server_pid))
    async with server as client, anyio.create_task_group() as group:
        group.start_soon(call_hang, client)
        while not server_pid.exists() or len(pids.read_text().split()) < 2:
            await anyio.sleep(0.05)
        os.kill(int(server_pid.read_text()), signal.SIGTERM)
    assert [failure.message for failure in failures] == ["Connection closed"]
    recorded = [int(pid) for pid in pids.read_text().split()]
    assert pids_alive(recorded) == []
    assert pids_alive([int(server_pid.read_text())]) == []


async def test_a_flood_is_cut_and_memory_stays_bounded(served: Path, mode: str, tmp_path: Path) -> None:
    server_pid = tmp_path / "server_pid"
    async with connect(served, mode, SERVER_PID=str(server_pid)) as client:
        result = await client.call_tool("flood", {})
        peak_kib = _peak_rss_kib(int(server_pid.read_text()))
    assert not result.is_error
    text = text_of(result)
    assert text.startswith("xxxx")
    assert "[output truncated: showing the first 262144 of 300000000 bytes]" in text
    assert result.meta is not None and result.meta["toolkiln/truncated"] is True
    # 300 MB went through the server; what it kept is 256 KiB. Its whole peak RSS
    # (SDK and Python included) stays far below the size of the flood.
    assert peak_kib < 200 * 1024


async def test_serving_reads_only_the_compiled_file(served: Path, mode: str, tools_dir: Path) -> None:
    shutil.rmtree(tools_dir)  # no script is read at start
    async with connect(served, mode) as client:
        tools = (await client.list_tools()).tools
        result = await client.call_tool("echo", {"message": "x"})
    assert len(tools) == 5
    assert result.is_error
    assert "could not start" in text_of(result)


def _peak_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc status")


async def test_stdio_calls_are_audited(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        await client.call_tool("echo", {"message": "audited"})
    record = json.loads((served / "logs" / "audit.jsonl").read_text().splitlines()[-1])
    assert (record["transport"], record["tool"]) == ("stdio", "echo")
    assert record["arguments"] == {"message": "audited"}
    assert record["client"] == "mcp"
    assert record["success"] is True
