"""Issue 30, finding 3: what HTTP sessions keep for resuming their streams is bounded in
bytes, for each session and for all of them, and the number of sessions is capped with a
message that says why. A real server; its own accounting read from `/health` (with the
token), not timed RSS."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.conftest import MakeTool
from tests.serve.http.test_resume import _open_session, rpc
from tests.serve.http_server import RunningServer, http_server
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.serve.http.answers import JSON_WINDOW

BIG = """#!/bin/bash
# Tool: big
# Description: Print 250 KiB
head -c 256000 /dev/zero | tr '\\0' 'x'
"""
# Slower than the window in which an answer comes as JSON (answers.py): a stream, resumable.
SMALL = f"""#!/bin/bash
# Tool: small
# Description: Print a word, after a while
sleep {JSON_WINDOW * 3}
echo small
"""
OVERALL = 8 * 1024 * 1024
PER_SESSION = 4 * 1024 * 1024
SESSIONS = 3
CALLS = 20  # 5 MB of results a session, 15 MB in all: over both budgets


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("big.sh", BIG)
    make_tool("small.sh", SMALL)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


def held(server: RunningServer) -> dict[str, Any]:
    answer = httpx2.get(f"{server.base_url}/health", headers=server.auth(), timeout=30).json()
    sessions: dict[str, Any] = answer["sessions"]
    return sessions


def call(http: httpx2.Client, server: RunningServer, headers: dict[str, str], number: int, tool: str) -> str:
    answer = http.post(server.mcp_url, headers=headers, json=rpc(number, "tools/call", {"name": tool}))
    assert answer.status_code == 200, answer.text
    return answer.text


def first_event_id(text: str) -> str:
    return next(line[3:].strip() for line in text.splitlines() if line.startswith("id:"))


def replayed(http: httpx2.Client, server: RunningServer, headers: dict[str, str], event_id: str) -> list[Any]:
    """What a resume from `event_id` replays (the stream stays open afterwards)."""
    texts: list[Any] = []
    with http.stream(
        "GET", server.mcp_url, headers={**headers, "Last-Event-ID": event_id}, timeout=3
    ) as stream:
        try:
            for line in stream.iter_lines():
                if line.startswith("data:") and line[5:].strip():
                    texts.append(json.loads(line[5:]))
        except httpx2.ReadTimeout:
            pass
    return texts


def test_many_sessions_with_big_results_stay_within_the_budgets(served: Path, tmp_path: Path) -> None:
    args = ("--max-event-memory", str(OVERALL))
    with http_server(served, tmp_path / "state", *args) as server, httpx2.Client(timeout=60) as http:
        sessions = [_open_session(http, server.mcp_url, server.auth()) for _ in range(SESSIONS)]
        peak = 0
        for number in range(1, CALLS + 1):
            for headers in sessions:
                call(http, server, headers, number, "big")
            peak = max(peak, held(server)["event_bytes"])
        budget = held(server)
        assert (budget["event_budget"], budget["per_session"]) == (OVERALL, PER_SESSION)
        assert OVERALL // 2 < peak <= OVERALL  # full, never over
        # A small session is not made to forget for the big ones: its result is replayed.
        small = _open_session(http, server.mcp_url, server.auth())
        priming = first_event_id(call(http, server, small, 1, "small"))
        assert held(server)["event_bytes"] <= OVERALL
        (result,) = replayed(http, server, small, priming)
        assert result["result"]["content"][0]["text"] == "small"
        # A session that ends frees what it kept.
        before = held(server)["event_bytes"]
        for headers in sessions:
            assert http.delete(server.mcp_url, headers=headers).status_code == 200
        assert held(server)["event_bytes"] < before // 4
        assert held(server)["open"] == 1


def test_past_the_session_cap_a_new_session_is_refused_with_the_reason(served: Path, tmp_path: Path) -> None:
    with (
        http_server(served, tmp_path / "state", "--max-sessions", "2") as server,
        httpx2.Client(timeout=60) as http,
    ):
        first, _ = (_open_session(http, server.mcp_url, server.auth()) for _ in range(2))
        with pytest.raises(KeyError):  # no mcp-session-id: refused
            _open_session(http, server.mcp_url, server.auth())
        headers = {**server.auth(), "Accept": "application/json, text/event-stream"}
        hello = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        refused = http.post(server.mcp_url, headers=headers, json=rpc(0, "initialize", hello))
        assert refused.status_code == 503 and "--max-sessions" in refused.json()["error"]["message"]
        assert http.delete(server.mcp_url, headers=first).status_code == 200
        assert "mcp-session-id" in _open_session(http, server.mcp_url, server.auth())  # room again
