"""A call through search mode's call tool goes the one way every call goes: a tool that
needs confirmation asks (or needs `confirm`), as called directly; and over HTTP too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp.types as types
import pytest

from tests.conftest import MakeTool, tune_tool
from tests.serve.catalog.test_catalog_search import TOOLS, write_catalog
from tests.serve.http_server import http_server, mcp_client
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("mode", ["legacy", "auto"])]

WIPE = """\
#!/bin/bash
# Description: Wipe a folder (pretend)
# @param folder: What to wipe (type: string, required: true)
echo "$folder" >> "$WIPED"
echo "wiped $folder"
"""


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    write_catalog(make_tool, TOOLS, 0)
    make_tool("wipe.sh", WIPE)
    assert not discover_tools(tools_dir, config_dir).errors
    tune_tool(config_dir, "wipe", requires_confirmation=True)
    build_catalog(config_dir, tools_dir)
    return config_dir


class Answer:
    def __init__(self) -> None:
        self.questions: list[str] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.questions.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": True})


def wiped(tmp_path: Path) -> list[str]:
    path = tmp_path / "wiped"
    return path.read_text().split() if path.exists() else []


async def test_call_tool_asks_for_confirmation_as_a_direct_call(
    served: Path, tmp_path: Path, mode: str
) -> None:
    answer = Answer()
    options = {"elicitation_callback": answer}
    env = {"WIPED": str(tmp_path / "wiped")}
    async with connect(served, mode, "--catalog-search", "on", client=options, **env) as client:
        found = await client.call_tool("search_tools", {"query": "wipe a folder"})
        assert found.structured_content is not None
        assert found.structured_content["tools"][0]["name"] == "wipe"
        result = await client.call_tool("call_tool", {"name": "wipe", "arguments": {"folder": "/tmp/old"}})
    assert answer.questions == ['Run the tool \'wipe\' with {"folder": "/tmp/old"}?']
    assert (result.is_error, text_of(result)) == (False, "wiped /tmp/old")
    assert wiped(tmp_path) == ["/tmp/old"]


async def test_a_client_that_cannot_be_asked_sees_and_passes_confirm(
    served: Path, tmp_path: Path, mode: str
) -> None:
    env = {"WIPED": str(tmp_path / "wiped")}
    async with connect(served, mode, "--catalog-search", "on", **env) as client:
        found = await client.call_tool("search_tools", {"query": "wipe a folder"})
        assert found.structured_content is not None
        schema = found.structured_content["tools"][0]["inputSchema"]
        assert schema["required"] == ["folder", "confirm"]  # as its own tools/list would show it
        refused = await client.call_tool("call_tool", {"name": "wipe", "arguments": {"folder": "/a"}})
        run = await client.call_tool(
            "call_tool", {"name": "wipe", "arguments": {"folder": "/b", "confirm": True}}
        )
    assert refused.is_error and "confirm" in text_of(refused)
    assert (run.is_error, text_of(run)) == (False, "wiped /b")
    assert wiped(tmp_path) == ["/b"]


async def test_search_mode_over_http(served: Path, tmp_path: Path, mode: str) -> None:
    with http_server(
        served, tmp_path / "state", "--catalog-search", "on", WIPED=str(tmp_path / "w")
    ) as server:
        async with mcp_client(server, mode) as client:
            assert {tool.name for tool in (await client.list_tools()).tools} == {"search_tools", "call_tool"}
            found = await client.call_tool("search_tools", {"query": "send an email"})
            assert found.structured_content is not None
            assert found.structured_content["tools"][0]["name"] == "send_email"
            sent = await client.call_tool("call_tool", {"name": "send_email", "arguments": {"to": "a@b"}})
            assert (sent.is_error, text_of(sent)) == (False, "send_email:a@b")
            bad = await client.call_tool("call_tool", {"name": "resize_image", "arguments": {"width": 1.5}})
            assert bad.is_error and "width" in text_of(bad)
            direct = await client.call_tool("echo", {"word": "hi"})
            assert text_of(direct) == "echo:hi"
