"""Interactive scripts (runner/interactive.py, serve/calls/interactive.py): a running script
asks the client (elicitation, sampling, roots) and reads the answers on stdin.

`legacy` (2025-11-25) gets server-to-client requests; `auto` (2026-07-28) gets
input-required results, and the same waiting process goes on when the client retries.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import MakeTool, tune_tool
from tests.serve.http_server import http_server, mcp_client
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio

SURVEY = """\
#!/usr/bin/env python3
# Tool: survey
# Description: Ask the user and the model, then report, from one process
# @param topic: What to ask about (type: string, required: true)
import json, os, sys

arguments = json.loads(sys.stdin.readline())
print("INFO asking about " + arguments["topic"], file=sys.stderr, flush=True)
print("ELICIT " + json.dumps({"message": "Your name?", "requestedSchema": {
    "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}),
    file=sys.stderr, flush=True)
name = json.loads(sys.stdin.readline())
print("INPUT " + json.dumps({
    "joke": {"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": arguments["topic"]}}],
        "maxTokens": 20}},
    "roots": {"method": "roots/list"},
}), file=sys.stderr, flush=True)
both = json.loads(sys.stdin.readline())
print(json.dumps({"name": name, "joke": both["joke"], "roots": both["roots"], "pid": os.getpid()}))
"""
PYTHON = '''"""Ask the user from a Python tool, on its warm worker.

@param greeting: How to greet (type: string, default: "Hello")
"""
import json
import os
import sys


def execute(params):
    question = {"message": "Your name?", "requestedSchema": {
        "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}
    print("ELICIT " + json.dumps(question), file=sys.stderr, flush=True)
    answer = json.loads(sys.stdin.readline())
    return {"text": params["greeting"] + ", " + answer["content"]["name"], "pid": os.getpid()}
'''
BAD_QUESTION = """\
#!/bin/bash
# Tool: bad_question
# Description: Asks in a way nobody can answer
read -r arguments
echo 'ELICIT not json' >&2
read -r answer
echo "$answer"
"""


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("survey.py", SURVEY)
    make_tool("bad_question.sh", BAD_QUESTION)
    make_tool("greeter.py", PYTHON, executable=False)
    assert not discover_tools(tools_dir, config_dir).errors
    for name in ("survey", "bad_question", "greeter"):
        tune_tool(config_dir, name, interactive=True)
    build_catalog(config_dir, tools_dir)
    return config_dir


class Client:
    """Callbacks that answer like a user, a model and a workspace, and count the questions."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def elicit(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params.message)
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    async def sample(
        self, context: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        self.asked.append("sample")
        text = types.TextContent(type="text", text="why did the kiln cool?")
        return types.CreateMessageResult(role="assistant", content=text, model="test-model")

    async def roots(self, context: Any) -> types.ListRootsResult:
        self.asked.append("roots")
        return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])

    def options(self) -> dict[str, Any]:
        return {
            "elicitation_callback": self.elicit,
            "sampling_callback": self.sample,
            "list_roots_callback": self.roots,
        }


def check_survey(result: Any, client: Client) -> None:
    assert not result.is_error, text_of(result)
    report = result.structured_content
    assert report["name"] == {"action": "accept", "content": {"name": "Ada"}}
    assert report["joke"]["content"]["text"] == "why did the kiln cool?"
    assert report["roots"]["roots"] == [{"uri": "file:///work", "name": "work"}]
    assert client.asked == ["Your name?", "sample", "roots"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_script_asks_the_user_the_model_and_the_roots_in_one_process(served: Path, mode: str) -> None:
    client = Client()
    async with connect(served, mode, client=client.options()) as session:
        result = await session.call_tool("survey", {"topic": "kilns"})
    check_survey(result, client)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_interactive_calls_work_over_http(served: Path, tmp_path: Path, mode: str) -> None:
    client = Client()
    (state := tmp_path / "state").mkdir()
    with http_server(served, state) as server:
        async with mcp_client(server, mode, **client.options()) as session:
            result = await session.call_tool("survey", {"topic": "kilns"})
    check_survey(result, client)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_python_tool_asks_from_its_warm_worker(served: Path, mode: str) -> None:
    client = Client()
    async with connect(served, mode, client=client.options()) as session:
        first = await session.call_tool("greeter", {})
        second = await session.call_tool("greeter", {"greeting": "Hi"})
    assert [first.structured_content["text"], second.structured_content["text"]] == ["Hello, Ada", "Hi, Ada"]
    assert first.structured_content["pid"] == second.structured_content["pid"]  # one worker, both calls
    assert client.asked == ["Your name?", "Your name?"]


async def test_a_2025_client_that_cannot_answer_lets_the_script_decide(served: Path) -> None:
    async with connect(served, "legacy") as session:  # no callbacks: no elicitation capability
        result = await session.call_tool("survey", {"topic": "kilns"})
    assert not result.is_error
    assert "does not support elicitation" in json.dumps(result.structured_content)


async def test_a_2026_client_that_cannot_answer_gets_the_missing_capability_error(served: Path) -> None:
    async with connect(served, "auto") as session:
        with pytest.raises(MCPError) as raised:
            await session.call_tool("survey", {"topic": "kilns"})
    assert raised.value.error.code == -32021
    assert raised.value.error.data == {"requiredCapabilities": {"elicitation": {}}}


async def test_a_malformed_question_is_answered_with_what_is_wrong(served: Path) -> None:
    async with connect(served, "legacy", client=Client().options()) as session:
        result = await session.call_tool("bad_question", {})
    assert "ELICIT must be followed by one JSON object" in text_of(result)


def test_toolkiln_call_tells_the_script_there_is_nobody_to_ask(served: Path, run_cli: Any) -> None:
    result = run_cli("call", "survey", "topic=kilns")
    assert result.exit_code == 0, result.output
    assert "there is no MCP client to ask" in result.output
