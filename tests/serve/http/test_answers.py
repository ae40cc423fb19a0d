"""A request's answer over Streamable HTTP (serve/http/answers.py): one JSON body when the
answer is all it has to say and comes within the window; an SSE stream, priming event
first, when something comes before it (progress) or the answer takes longer; with no
window (TOOLKILN_JSON_WINDOW=0), a stream for every request, as before."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from tests.conftest import MakeTool
from tests.serve.http.test_resume import _open_session, rpc
from tests.serve.http_server import http_server
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.serve.http.answers import JSON_WINDOW, WINDOW_VARIABLE

ECHO = """#!/bin/bash
# Tool: echo
# Description: Print a message back
# @param message: What to print (type: string, required: true)
echo "$message"
"""
PROGRESS = """#!/bin/bash
# Tool: progress
# Description: Reports progress, then answers
echo "PROGRESS 1/2 working" >&2
sleep 0.5
echo "PROGRESS 2/2 done" >&2
echo "finished"
"""
SLOW = f"""#!/bin/bash
# Tool: slow
# Description: Answers after the window, saying nothing before
sleep {JSON_WINDOW * 3}
echo "late"
"""
# Windows that leave no doubt on a busy machine: ample for a quick call, or none at all.
AMPLE = {WINDOW_VARIABLE: "60"}
NONE = {WINDOW_VARIABLE: "0"}


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path) -> Path:
    (tmp_path / "state").mkdir()
    for name, body in (("echo.sh", ECHO), ("progress.sh", PROGRESS), ("slow.sh", SLOW)):
        make_tool(name, body)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


def test_a_quick_answer_comes_as_json_and_one_after_progress_as_a_primed_stream(
    served: Path, tmp_path: Path
) -> None:
    with http_server(served, tmp_path / "state", **AMPLE) as server, httpx2.Client(timeout=60) as http:
        headers = _open_session(http, server.mcp_url, server.auth())
        quick = http.post(server.mcp_url, headers=headers, json=rpc(1, "tools/call", _args("echo", "hi")))
        assert quick.headers["content-type"] == "application/json"
        assert quick.headers["mcp-session-id"] == headers["mcp-session-id"]
        assert quick.json()["id"] == 1 and quick.json()["result"]["content"][0]["text"] == "hi"
        listed = http.post(server.mcp_url, headers=headers, json=rpc(2, "tools/list", {}))
        assert listed.headers["content-type"] == "application/json" and listed.json()["result"]["tools"]

        meta = {"progressToken": "p"}
        call = rpc(3, "tools/call", {"name": "progress", "arguments": {}, "_meta": meta})
        progress = _events(http.post(server.mcp_url, headers=headers, json=call))
        assert progress[0]["data"] == "" and "retry" in progress[0]  # the priming event, first
        assert json.loads(progress[1]["data"])["method"] == "notifications/progress"
        assert json.loads(progress[-1]["data"])["result"]["content"][0]["text"] == "finished"

        # What is not a request keeps the SDK's way: a notification is accepted with 202.
        note = {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}
        assert http.post(server.mcp_url, headers=headers, json=note).status_code == 202


def test_an_answer_later_than_the_window_comes_as_a_primed_stream(served: Path, tmp_path: Path) -> None:
    with http_server(served, tmp_path / "state") as server, httpx2.Client(timeout=60) as http:
        headers = _open_session(http, server.mcp_url, server.auth())
        late = _events(http.post(server.mcp_url, headers=headers, json=rpc(1, "tools/call", _args("slow"))))
        assert late[0]["data"] == "" and int(late[0]["id"]) < int(late[-1]["id"])
        assert json.loads(late[-1]["data"])["result"]["content"][0]["text"] == "late"


def test_with_no_window_every_request_has_a_stream(served: Path, tmp_path: Path) -> None:
    with http_server(served, tmp_path / "state", **NONE) as server, httpx2.Client(timeout=60) as http:
        headers = _open_session(http, server.mcp_url, server.auth())
        quick = _events(
            http.post(server.mcp_url, headers=headers, json=rpc(1, "tools/call", _args("echo", "hi")))
        )
        assert (
            quick[0]["data"] == "" and json.loads(quick[-1]["data"])["result"]["content"][0]["text"] == "hi"
        )


def _args(name: str, message: str | None = None) -> dict[str, object]:
    return {"name": name, "arguments": {} if message is None else {"message": message}}


def _events(response: httpx2.Response) -> list[dict[str, str]]:
    """The SSE events of a response (each a dict of its fields)."""
    assert response.headers["content-type"].startswith("text/event-stream")
    events = []
    for block in response.text.replace("\r\n", "\n").split("\n\n"):
        fields = {}
        for line in block.splitlines():
            name, _, value = line.partition(":")
            fields[name] = value.strip()
        if fields:
            events.append(fields)
    return events
