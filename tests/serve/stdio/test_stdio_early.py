"""`serve --stdio` answers `initialize` and `tools/list` while the SDK loads (serve/stdio/early.py):
the answers are the SDK's own, the SDK's session goes on from them, and nothing a client
sent meanwhile is lost or reordered. Real server processes; the SDK's real client."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from tests.conftest import MakeTool, child_env, tune_tool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.serve.stdio import early

ECHO = """\
#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Print a message back", "title": "Echo"}'
  echo '{"message": {"description": "What to print", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
printf '%s\\n' "$message"
"""
WIPE = """\
#!/bin/sh
# Tool: wipe
# Description: Wipe something (asks first)
# @param target: What to wipe (type: string, required: true)
echo "wiped $target"
"""
ANSWERED_EARLY = "answered tools/list while the SDK was loading"


def initialize(request_id: Any = 1, **params: Any) -> dict[str, Any]:
    init = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
        **params,
    }
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": init}


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def request(request_id: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, **({"params": params} if params else {})}


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("echo.sh", ECHO)
    make_tool("wipe.sh", WIPE)
    discover_tools(tools_dir, config_dir)
    tune_tool(config_dir, "wipe", requires_confirmation=True)
    build_catalog(config_dir, tools_dir)
    return config_dir


def exchange(
    config_dir: Path, messages: list[dict[str, Any]], answers: int, *args: str
) -> tuple[list[dict[str, Any]], str]:
    """Send `messages` at once to a fresh server; its first `answers` lines (stdin stays
    open until they are read) and its log."""
    with subprocess.Popen(
        [
            sys.executable,
            "-m",
            "toolkiln",
            "--log-level",
            "debug",
            "serve",
            "--config-dir",
            str(config_dir),
            *args,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(),
    ) as server:
        assert server.stdin is not None and server.stdout is not None and server.stderr is not None
        server.stdin.write(b"".join(json.dumps(message).encode() + b"\n" for message in messages))
        server.stdin.flush()
        lines = [json.loads(server.stdout.readline()) for _ in range(answers)]
        server.stdin.close()
        log = server.stderr.read().decode()
        server.wait(timeout=60)
    return lines, log


def test_the_early_constants_are_the_sdks(served: Path) -> None:
    # The version it answers early is the one the SDK negotiates for it; the capabilities
    # and server info are what the SDK's server says when it answers (the handshake below
    # is held back from the early answers by a field the SDK ignores).
    assert early.EARLY_VERSION == LATEST_HANDSHAKE_VERSION
    messages = [initialize(clientInfo={"name": "t", "version": "1", "icons": []})]
    (answer,), log = exchange(served, messages, 1)
    assert "answered initialize" not in log
    assert answer["result"]["capabilities"] == early.CAPABILITIES
    (early_answer,), log = exchange(served, [initialize()], 1)
    assert "answered initialize while the SDK was loading" in log
    assert early_answer == answer


@pytest.mark.parametrize("capabilities", [{}, {"elicitation": {"form": {}}, "roots": {"listChanged": True}}])
def test_an_early_tool_list_is_the_sdks(served: Path, capabilities: dict[str, Any]) -> None:
    # The ping is not answered early, so the second tools/list is the SDK's own; a client
    # without elicitation sees `confirm` in wipe's schema, one with it does not.
    messages = [
        initialize(capabilities=capabilities),
        INITIALIZED,
        request(2, "tools/list"),
        request(3, "ping"),
        request(4, "tools/list"),
    ]
    answers, log = exchange(served, messages, 4)
    assert [answer["id"] for answer in answers] == [1, 2, 3, 4]
    assert log.count(ANSWERED_EARLY) == 1
    assert answers[1]["result"] == answers[3]["result"]
    wipe = next(tool for tool in answers[1]["result"]["tools"] if tool["name"] == "wipe")
    assert ("confirm" in wipe["inputSchema"]["properties"]) == ("elicitation" not in capabilities)


def test_what_comes_before_the_sdk_is_answered_in_order(served: Path) -> None:
    # Everything in one write, before the SDK can have loaded: calls, a second list, a
    # request the early answers never take, and an id like the replayed ones' own.
    messages = [
        initialize("init"),
        INITIALIZED,
        request("toolkiln-early-0", "tools/list"),
        request(7, "tools/call", {"name": "echo", "arguments": {"message": "first"}}),
        request(8, "tools/list"),
        request(9, "tools/call", {"name": "echo", "arguments": {"message": "second"}}),
    ]
    answers, log = exchange(served, messages, 5)
    by_id = {answer["id"]: answer for answer in answers}
    assert sorted(by_id, key=str) == sorted(["init", "toolkiln-early-0", 7, 8, 9], key=str)
    assert [answer["id"] for answer in answers[:2]] == ["init", "toolkiln-early-0"]
    assert by_id[7]["result"]["content"][0]["text"] == "first"
    assert by_id[9]["result"]["content"][0]["text"] == "second"
    assert by_id[8]["result"] == by_id["toolkiln-early-0"]["result"]
    assert "early answers" in log


@pytest.mark.parametrize(
    "messages",
    [
        [initialize(protocolVersion="2025-06-18")],  # another version: the SDK negotiates
        [initialize(capabilities={"elicitation": None})],  # null is no capability to the SDK
        [initialize(capabilities={"roots": {"listChanged": "yes"}})],  # the SDK refuses it
        [initialize(clientInfo={"name": "t"})],  # no version: the SDK refuses it
        [initialize(capabilities={"experimental": {"x": {"big": 1e400}}})],  # not a finite number
        [initialize(clientInfo={"name": "\ud800", "version": "1"})],  # a lone surrogate is no text
        [initialize(2**70)],  # an id past 64 bits
        [request(1, "tools/list")],  # before initialize
        [initialize(), request(2, "tools/list")],  # before notifications/initialized
        [initialize(), INITIALIZED, request(2, "tools/list", {"cursor": "x"})],
    ],
)
def test_what_the_early_answers_cannot_vouch_for_is_the_sdks(
    served: Path, messages: list[dict[str, Any]]
) -> None:
    answers, log = exchange(served, messages, 1 + (len(messages) == 3))
    assert ANSWERED_EARLY not in log
    if len(messages) == 1:
        assert "answered initialize" not in log
    for answer in answers:  # each gets the SDK's answer, whatever it is
        assert "result" in answer or "error" in answer


def test_no_early_answers_under_watch(served: Path, tools_dir: Path) -> None:
    # A client that has its first list expects every change after it to reach it: the
    # watcher starts with the SDK's session, so under --watch the SDK answers it all.
    messages = [initialize(), INITIALIZED, request(2, "tools/list")]
    answers, log = exchange(served, messages, 2, "--watch", "--tools-dir", str(tools_dir))
    assert [answer["id"] for answer in answers] == [1, 2]
    assert "while the SDK was loading" not in log


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_sdk_client_in_both_eras(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        listed = await client.list_tools()
        assert sorted(tool.name for tool in listed.tools) == ["echo", "wipe"]
        assert client.instructions is not None and "Tools from the scripts in" in client.instructions
        assert client.server_info is not None and client.server_info.name == "toolkiln"
        result = await client.call_tool("echo", {"message": "hello"})
        assert text_of(result) == "hello"
        again = await client.list_tools(cache_mode="bypass")
        assert again.tools == listed.tools
