"""An llm-functions agent's `tools.js` through `toolkiln serve` and the SDK's real
client: each documented exported function is a tool, called with the arguments object."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.discover.test_js_agent import AGENT_TOOLS_JS, ESM_AGENT_TOOLS
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio

HOSTILE = "-n $(id) `id`; 'it's' \"q\" ünïcode"


@pytest.fixture
def agents(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("agents/notes/tools.js", AGENT_TOOLS_JS, executable=False)
    make_tool("agents/hello/tools.mjs", ESM_AGENT_TOOLS, executable=False)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, [str(error) for error in report.errors]
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_each_function_gets_the_arguments_object_and_its_result_is_the_output(agents: Path) -> None:
    async with connect(agents, "auto") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        added = await client.call_tool("add_note", {"text": HOSTILE})
        removed = await client.call_tool("remove_note", {"id": 7})
        listed = await client.call_tool("list_notes", {})
        found = await client.call_tool("find_notes", {"word": "--limit"})
        greeted = await client.call_tool("greet", {"name": "Zoë"})
        farewell = await client.call_tool("farewell", {})
    assert names == {"add_note", "remove_note", "list_notes", "find_notes", "greet", "farewell"}
    assert text_of(added).startswith("added ")
    assert json.loads(text_of(added).removeprefix("added ")) == {"text": HOSTILE, "priority": "low"}
    assert json.loads(text_of(removed)) == {"removed": 7}
    assert text_of(listed) == "[]"
    assert json.loads(text_of(found)) == {"word": "--limit", "limit": 5}
    assert text_of(greeted) == "hello Zoë"
    assert text_of(farewell) == "bye"
