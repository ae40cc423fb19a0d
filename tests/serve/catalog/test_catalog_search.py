"""Search mode for big catalogs (serve/catalog/search/): a real `toolkiln serve` process
and the SDK's real client, over both protocol eras."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("mode", ["legacy", "auto"])]

SCRIPT = """
#!/bin/bash
# Description: {description}
# @param {param}: {param_description} (type: {type}, required: true)
printf '%s:%s' "{name}" "${param}"
"""
TOOLS = {
    "resize_image": ("Resize a picture to the given width", "width", "Width in pixels", "integer"),
    "send_email": ("Send an email message to a recipient", "to", "The recipient's address", "string"),
    "git_status": ("Show the working tree status of a git repository", "repo", "Repository path", "string"),
    "echo": ("Say the word back", "word", "The word", "string"),
}
FILLERS = 45  # above the default threshold (40) with the four tools


def write_catalog(make_tool: MakeTool, tools: dict[str, tuple[str, str, str, str]], fillers: int) -> None:
    for name, (description, param, param_description, kind) in tools.items():
        body = SCRIPT.format(
            description=description, param=param, param_description=param_description, type=kind, name=name
        )
        make_tool(f"{name}.sh", body)
    for index in range(fillers):
        make_tool(
            f"filler_{index:02d}.sh",
            SCRIPT.format(
                description=f"Placeholder number {index} of the catalog",
                param="value",
                param_description="Any value",
                type="string",
                name=f"filler_{index}",
            ),
        )


def build(tools_dir: Path, config_dir: Path, server: dict[str, Any] | None = None) -> Path:
    if server is not None:
        config_dir.mkdir(exist_ok=True)
        (config_dir / "server.json").write_text(json.dumps(server))
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.fixture
def big(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    write_catalog(make_tool, TOOLS, FILLERS)
    return build(tools_dir, config_dir)


async def listed_names(client: Any) -> set[str]:
    return {tool.name for tool in (await client.list_tools()).tools}


async def search(client: Any, query: str, limit: int = 5) -> list[dict[str, Any]]:
    result = await client.call_tool("search_tools", {"query": query, "limit": limit})
    assert not result.is_error, text_of(result)
    assert result.structured_content == json.loads(text_of(result))
    found: list[dict[str, Any]] = result.structured_content["tools"]
    return found


async def test_big_catalog_lists_the_two_tools_and_search_finds(big: Path, mode: str) -> None:
    async with connect(big, mode) as client:
        assert await listed_names(client) == {"search_tools", "call_tool"}
        found = await search(client, "make a picture smaller, resize it")
        assert found[0]["name"] == "resize_image"
        assert found[0]["description"] == TOOLS["resize_image"][0]
        assert found[0]["inputSchema"]["properties"]["width"]["type"] == "integer"
        assert (await search(client, "email someone"))[0]["name"] == "send_email"
        assert (await search(client, "what changed in my git repo"))[0]["name"] == "git_status"
        assert await search(client, "zebra xylophone") == []


async def test_call_tool_runs_the_real_tool_and_validates(big: Path, mode: str) -> None:
    async with connect(big, mode) as client:
        result = await client.call_tool("call_tool", {"name": "echo", "arguments": {"word": "hi"}})
        assert not result.is_error and text_of(result) == "echo:hi"
        bad = await client.call_tool("call_tool", {"name": "resize_image", "arguments": {"width": "big"}})
        assert bad.is_error and "width" in text_of(bad)
        missing = await client.call_tool("call_tool", {"name": "echo", "arguments": {}})
        assert missing.is_error and "word" in text_of(missing)
        extra = await client.call_tool("call_tool", {"name": "echo", "arguments": {"word": "a", "x": 1}})
        assert extra.is_error and "x" in text_of(extra)
        unknown = await client.call_tool("call_tool", {"name": "no_such_tool", "arguments": {}})
        assert unknown.is_error and "search_tools" in text_of(unknown)
        itself = await client.call_tool("call_tool", {"name": "call_tool", "arguments": {}})
        assert itself.is_error
        malformed = await client.call_tool("call_tool", {"tool": "echo"})
        assert malformed.is_error and "name" in text_of(malformed)
        no_query = await client.call_tool("search_tools", {"limit": 500})
        assert no_query.is_error and "query" in text_of(no_query)
        # Every tool stays callable by its own name.
        direct = await client.call_tool("echo", {"word": "there"})
        assert not direct.is_error and text_of(direct) == "echo:there"


async def test_calls_through_the_call_tool_are_audited_as_the_real_tool(big: Path, mode: str) -> None:
    async with connect(big, mode) as client:
        await client.call_tool("call_tool", {"name": "echo", "arguments": {"word": "audited"}})
    records = [json.loads(line) for line in (big / "logs" / "audit.jsonl").read_text().splitlines()]
    assert [record["tool"] for record in records] == ["echo"]


async def test_disabled_tools_are_not_found(big: Path, tools_dir: Path, mode: str) -> None:
    config = big / "tools" / "send_email.json"
    data = json.loads(config.read_text())
    config.write_text(json.dumps({**data, "enabled": False}))
    build_catalog(big, tools_dir)
    async with connect(big, mode) as client:
        assert all(tool["name"] != "send_email" for tool in await search(client, "send an email message", 20))
        refused = await client.call_tool("call_tool", {"name": "send_email", "arguments": {"to": "a"}})
        assert refused.is_error


async def test_threshold_and_switches(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, mode: str
) -> None:
    write_catalog(make_tool, TOOLS, 0)
    small = await anyio.to_thread.run_sync(build, tools_dir, config_dir)
    async with connect(small, mode) as client:  # four tools: below the threshold, all listed
        assert await listed_names(client) == set(TOOLS)
    async with connect(small, mode, "--catalog-search", "on") as client:
        assert await listed_names(client) == {"search_tools", "call_tool"}
    async with connect(small, mode, "--search-above", "3") as client:
        assert await listed_names(client) == {"search_tools", "call_tool"}
    settings = {"catalog": {"search_above": 2, "search_tool": "find_tool"}}
    await anyio.to_thread.run_sync(build, tools_dir, config_dir, settings)
    async with connect(small, mode) as client:
        assert await listed_names(client) == {"find_tool", "call_tool"}
        found = await client.call_tool("find_tool", {"query": "resize a picture"})
        assert found.structured_content is not None
        assert found.structured_content["tools"][0]["name"] == "resize_image"
    async with connect(small, mode, "--catalog-search", "off") as client:
        assert await listed_names(client) == set(TOOLS)
        with pytest.raises(MCPError, match="call_tool"):  # with search mode off, its tools are not there
            await client.call_tool("call_tool", {"name": "echo", "arguments": {"word": "a"}})
