"""Resumable streams (serve/http/events.py): a client that loses its connection mid-call
reconnects with Last-Event-ID and gets the rest of the call, result included."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2

from tests.conftest import MakeTool
from tests.serve.http_server import http_server
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.serve.http.answers import JSON_WINDOW

SLOW = """#!/bin/bash
# Tool: slow
# Description: Reports progress, then answers
echo "PROGRESS 1/2 working" >&2
sleep 0.5
echo "PROGRESS 2/2 done" >&2
echo "finished"
"""
# Slower than the window in which an answer comes as JSON (answers.py): a stream, resumable.
ECHO = f"""#!/bin/bash
# Tool: echo
# Description: Print a message back, after a while
# @param message: What to print (type: string, required: true)
sleep {JSON_WINDOW * 3}
echo "$message"
"""


def test_a_dropped_stream_resumes_with_last_event_id(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    make_tool("slow.sh", SLOW)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    (state := tmp_path / "state").mkdir()
    with http_server(config_dir, state) as server, httpx2.Client(timeout=30) as http:
        headers = _open_session(http, server.mcp_url, server.auth())
        call = rpc(1, "tools/call", {"name": "slow", "arguments": {}, "_meta": {"progressToken": "p"}})
        seen: list[str] = []
        with http.stream("POST", server.mcp_url, headers=headers, json=call) as stream:
            for line in stream.iter_lines():
                seen.append(line)
                if "notifications/progress" in line:
                    break  # the connection drops mid-call
        last_id = [line[3:].strip() for line in seen if line.startswith("id:")][-1]
        assert "retry: " in "\n".join(seen)  # the client is told how soon to come back
        resumed: list[dict[str, object]] = []
        with http.stream("GET", server.mcp_url, headers={**headers, "Last-Event-ID": last_id}) as stream:
            for line in stream.iter_lines():
                if line.startswith("data:") and line[5:].strip():
                    resumed.append(json.loads(line[5:]))
                    if resumed[-1].get("id") == 1:
                        break
    progress, result = resumed[0], resumed[-1]
    assert progress["method"] == "notifications/progress" and progress["params"]["progress"] == 2  # type: ignore[index]
    assert result["result"]["content"][0]["text"] == "finished"  # type: ignore[index]


def test_a_resumed_stream_replays_only_its_own_sessions_events(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    """Stream ids are request ids, the same in every session: session B resuming its
    request 7 must get its own answer, never session A's request 7."""
    make_tool("echo.sh", ECHO)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    (state := tmp_path / "state").mkdir()
    with http_server(config_dir, state) as server, httpx2.Client(timeout=30) as http:
        first, second = (_open_session(http, server.mcp_url, server.auth()) for _ in range(2))
        call = rpc(7, "tools/call", {"name": "echo", "arguments": {"message": "second's"}})
        answer = http.post(server.mcp_url, headers=second, json=call).text
        priming_id = next(line[3:].strip() for line in answer.splitlines() if line.startswith("id:"))
        call = rpc(7, "tools/call", {"name": "echo", "arguments": {"message": "first's"}})
        assert "first's" in http.post(server.mcp_url, headers=first, json=call).text
        texts: list[str] = []
        resumed = {**second, "Last-Event-ID": priming_id}
        with http.stream("GET", server.mcp_url, headers=resumed, timeout=3) as stream:
            try:
                for line in stream.iter_lines():
                    if line.startswith("data:") and line[5:].strip():
                        texts.append(json.loads(line[5:])["result"]["content"][0]["text"])
            except httpx2.ReadTimeout:
                pass  # the stream stays open for what may come; all of the replay came first
    assert texts == ["second's"]


def _open_session(http: httpx2.Client, url: str, auth: dict[str, str]) -> dict[str, str]:
    """A new initialized session: the headers of its requests."""
    headers = {**auth, "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    opened = http.post(url, headers=headers, json=rpc(0, "initialize", hello))
    headers["mcp-session-id"] = opened.headers["mcp-session-id"]
    http.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    return headers


def rpc(number: int, method: str, params: dict[str, object]) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": number, "method": method, "params": params}
