"""`requires_confirmation`: elicitation (2025-11-25), input-required and retry (2026-07-28),
or a required `confirm: true` argument for clients that cannot be asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp.types as types
import pytest

from tests.conftest import MakeTool, tune_tool
from tests.serve.http_server import http_server
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio

WIPE = """\
#!/bin/bash
# Tool: wipe
# Description: Wipe a folder (pretend)
# @param folder: What to wipe (type: string, required: true)
echo "$folder" >> "$WIPED"
echo "wiped $folder"
"""


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("wipe/run.sh", WIPE)
    assert not discover_tools(tools_dir, config_dir).errors
    tune_tool(config_dir, "wipe", requires_confirmation=True)
    build_catalog(config_dir, tools_dir)
    return config_dir


class Answer:
    """An elicitation callback that answers every question the same way, and keeps them."""

    def __init__(self, action: str, confirm: bool = True) -> None:
        self.action = action
        self.confirm = confirm
        self.questions: list[str] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.questions.append(params.message)
        content = {"confirm": self.confirm} if self.action == "accept" else None
        return types.ElicitResult(action=self.action, content=content)  # type: ignore[arg-type]


ASK_THEN_WIPE = """\
#!/usr/bin/env python3
# Tool: tidy
# Description: Ask which folder, then wipe it (pretend)
import json, os, sys
json.loads(sys.stdin.readline())
print("ELICIT " + json.dumps({"message": "Which folder?", "requestedSchema": {
    "type": "object", "properties": {"folder": {"type": "string"}}, "required": ["folder"]}}),
    file=sys.stderr, flush=True)
answer = json.loads(sys.stdin.readline())
with open(os.environ["WIPED"], "a") as wiped:
    wiped.write(answer["content"]["folder"] + "\\n")
print("wiped " + answer["content"]["folder"])
"""


def wiped(tmp_path: Path) -> list[str]:
    path = tmp_path / "wiped"
    return path.read_text().split() if path.exists() else []


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_accepted_confirmation_runs_the_tool(served: Path, tmp_path: Path, mode: str) -> None:
    answer = Answer("accept")
    client_options = {"elicitation_callback": answer}
    async with connect(served, mode, WIPED=str(tmp_path / "wiped"), client=client_options) as client:
        schema = (await client.list_tools()).tools[0].input_schema
        result = await client.call_tool("wipe", {"folder": "/tmp/old"})
    assert "confirm" not in schema["properties"]
    assert answer.questions == ['Run the tool \'wipe\' with {"folder": "/tmp/old"}?']
    assert (result.is_error, text_of(result)) == (False, "wiped /tmp/old")
    assert wiped(tmp_path) == ["/tmp/old"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize(("action", "confirm"), [("decline", True), ("cancel", True), ("accept", False)])
async def test_a_declined_confirmation_never_runs_the_script(
    served: Path, tmp_path: Path, mode: str, action: str, confirm: bool
) -> None:
    client_options = {"elicitation_callback": Answer(action, confirm)}
    async with connect(served, mode, WIPED=str(tmp_path / "wiped"), client=client_options) as client:
        result = await client.call_tool("wipe", {"folder": "/tmp/old"})
    assert result.is_error
    assert text_of(result) == "The user did not confirm running 'wipe', so nothing was run."
    assert wiped(tmp_path) == []


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_client_without_elicitation_must_pass_confirm(
    served: Path, tmp_path: Path, mode: str
) -> None:
    async with connect(served, mode, WIPED=str(tmp_path / "wiped")) as client:
        schema = (await client.list_tools()).tools[0].input_schema
        refused = await client.call_tool("wipe", {"folder": "/a"})
        run = await client.call_tool("wipe", {"folder": "/b", "confirm": True})
    assert schema["required"] == ["folder", "confirm"]
    assert schema["properties"]["confirm"]["const"] is True
    assert refused.is_error
    assert 'call it again with "confirm": true' in text_of(refused)
    assert (run.is_error, text_of(run)) == (False, "wiped /b")
    assert wiped(tmp_path) == ["/b"]


def test_rpc_clients_confirm_with_the_argument(served: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    with http_server(served, state, WIPED=str(tmp_path / "wiped")) as running:
        tools = running.rpc("tools/list").json()["result"]["tools"]
        refused = running.rpc("tools/call", {"name": "wipe", "arguments": {"folder": "/a"}}).json()["result"]
        run = running.rpc(
            "tools/call", {"name": "wipe", "arguments": {"folder": "/b", "confirm": True}}
        ).json()
    assert "confirm" in tools[0]["inputSchema"]["required"]
    assert refused["isError"] is True
    assert run["result"]["content"][0]["text"] == "wiped /b"
    assert wiped(tmp_path) == ["/b"]


@pytest.fixture
def asks_after_confirming(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("tidy.py", ASK_THEN_WIPE)
    assert not discover_tools(tools_dir, config_dir).errors
    tune_tool(config_dir, "tidy", requires_confirmation=True, interactive=True)
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_a_confirmed_interactive_call_is_asked_once_then_answers_its_script(
    asks_after_confirming: Path, tmp_path: Path
) -> None:
    """2026-07-28: the retry that brings the script's answers is not asked to confirm again
    (before: every retry re-asked, and a confirmed retry started the script anew)."""
    questions: list[str] = []

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        questions.append(params.message)
        content = {"confirm": True} if params.message.startswith("Run the tool") else {"folder": "/tmp/old"}
        return types.ElicitResult(action="accept", content=content)

    client = {"elicitation_callback": answer}
    async with connect(
        asks_after_confirming, "auto", WIPED=str(tmp_path / "wiped"), client=client
    ) as session:
        result = await session.call_tool("tidy", {})
    assert questions == ["Run the tool 'tidy' with {}?", "Which folder?"]
    assert (result.is_error, text_of(result)) == (False, "wiped /tmp/old")
    assert wiped(tmp_path) == ["/tmp/old"]
