"""Resumable streams (serve/events.py): a client that loses its connection mid-call
reconnects with Last-Event-ID and gets the rest of the call, result included."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2

from tests.conftest import MakeTool
from tests.serve.http_server import http_server
from toolkiln.build import build_catalog
from toolkiln.discover import discover_tools

SLOW = """#!/bin/bash
# Tool: slow
# Description: Reports progress, then answers
echo "PROGRESS 1/2 working" >&2
sleep 0.5
echo "PROGRESS 2/2 done" >&2
echo "finished"
"""


def test_a_dropped_stream_resumes_with_last_event_id(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    make_tool("slow.sh", SLOW)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    (state := tmp_path / "state").mkdir()
    with http_server(config_dir, state) as server, httpx2.Client(timeout=30) as http:
        headers = {
            **server.auth(),
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
        }
        hello = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        opened = http.post(server.mcp_url, headers=headers, json=rpc(0, "initialize", hello))
        headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        http.post(
            server.mcp_url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"}
        )
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


def rpc(number: int, method: str, params: dict[str, object]) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": number, "method": method, "params": params}
