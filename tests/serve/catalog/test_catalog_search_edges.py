"""Search mode's edges: names that collide with its two tools, hostile descriptions,
and a catalog that changes under `serve --watch` (a real server, the real client)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest

from tests.conftest import MakeTool, child_env
from tests.serve.catalog.test_catalog_search import TOOLS, build, listed_names, search, write_catalog
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.errors import BuildError

WAIT = 20


def test_a_tool_named_as_a_search_tool_is_refused_at_build(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    write_catalog(make_tool, {**TOOLS, "call_tool": TOOLS["echo"]}, 0)
    with pytest.raises(BuildError, match=r"'call_tool'.*catalog\.call_tool"):
        build(tools_dir, config_dir)
    # Named otherwise, both are served: the user's call_tool keeps its name.
    build(tools_dir, config_dir, {"catalog": {"call_tool": "run_found_tool", "search": "on"}})


def test_serve_refuses_to_turn_search_on_over_a_colliding_tool(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    write_catalog(make_tool, {**TOOLS, "search_tools": TOOLS["echo"]}, 0)
    build(tools_dir, config_dir, {"catalog": {"search": "off"}})  # off: the name is free
    served = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolkiln",
            "serve",
            "--config-dir",
            str(config_dir),
            "--catalog-search",
            "on",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=60,
    )
    assert served.returncode == 1
    assert "'search_tools'" in served.stderr and "catalog.search_tool" in served.stderr


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_colliding_user_tool_renamed_meta_tools(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, mode: str
) -> None:
    write_catalog(make_tool, {**TOOLS, "call_tool": TOOLS["echo"]}, 0)
    settings = {"catalog": {"call_tool": "run_found_tool", "search": "on"}}
    await anyio.to_thread.run_sync(build, tools_dir, config_dir, settings)
    async with connect(config_dir, mode) as client:
        assert await listed_names(client) == {"search_tools", "run_found_tool"}
        own = await client.call_tool("call_tool", {"word": "mine"})  # the user's tool, directly
        assert not own.is_error and text_of(own) == "call_tool:mine"
        found = await client.call_tool("run_found_tool", {"name": "call_tool", "arguments": {"word": "w"}})
        assert text_of(found) == "call_tool:w"


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_hostile_descriptions(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, mode: str
) -> None:
    hidden = "".join(chr(0xE0000 + ord(char)) for char in "send email")  # tag characters: invisible
    hostile = {
        **TOOLS,
        "helper": (f"Harmless helper{hidden} zero\u200bwidth", "x", "X", "string"),
        "stuffed": ("Image tool", "x", "X", "string"),
    }
    write_catalog(make_tool, hostile, 0)
    await anyio.to_thread.run_sync(build, tools_dir, config_dir)
    # A user's config may say anything: a 2 MB description that repeats the words of another tool.
    config = config_dir / "tools" / "stuffed.json"
    data = json.loads(config.read_text())
    data["script_config"]["description"] = "resize picture width " * 100_000
    config.write_text(json.dumps(data))
    await anyio.to_thread.run_sync(build_catalog, config_dir, tools_dir)
    async with connect(config_dir, mode, "--catalog-search", "on") as client:
        found = [tool["name"] for tool in await search(client, "send an email")]
        assert found[0] == "send_email" and "helper" not in found  # invisible words are no words
        assert [tool["name"] for tool in await search(client, "harmless zero")] == ["helper"]
        resized = [tool["name"] for tool in await search(client, "resize a picture to a width")]
        assert resized[0] == "resize_image"  # repeating words a thousand times gains nothing
        huge = await client.call_tool("search_tools", {"query": "resize " * 5000})  # over maxLength
        assert huge.is_error and "query" in text_of(huge)
        invisible = [tool["name"] for tool in await search(client, "send\u200b\U000e0041email")]
        assert invisible[0] == "send_email"


class ToolListChanges:
    def __init__(self) -> None:
        self.count = 0

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.count += 1


@pytest.mark.anyio
async def test_watch_rebuilds_the_index_and_tells_clients(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    write_catalog(make_tool, TOOLS, 0)
    await anyio.to_thread.run_sync(build, tools_dir, config_dir)
    changes = ToolListChanges()
    watch = ["--watch", "--tools-dir", str(tools_dir), "--search-above", "3"]
    async with connect(config_dir, "legacy", *watch, client={"message_handler": changes}) as client:
        assert await listed_names(client) == {"search_tools", "call_tool"}
        assert await search(client, "translate german") == []
        make_tool(
            "translate.sh",
            "#!/bin/bash\n# Description: Translate text into German\n"
            '# @param text: The text (type: string, required: true)\necho "$text"\n',
        )
        with anyio.fail_after(WAIT):
            while not await search(client, "translate german"):
                await anyio.sleep(0.1)
        assert changes.count >= 1
        assert (await search(client, "translate german"))[0]["name"] == "translate"


def _without_bm25s(tmp_path: Path) -> str:
    """A folder that, first on PYTHONPATH, makes `import bm25s` fail as if not installed."""
    shadow = tmp_path / "no_bm25s" / "bm25s"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('bm25s is not installed here')\n")
    return str(shadow.parent)


def test_search_on_without_bm25s_refuses_with_the_install_command(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    write_catalog(make_tool, TOOLS, 0)
    build(tools_dir, config_dir)
    served = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolkiln",
            "serve",
            "--config-dir",
            str(config_dir),
            "--catalog-search",
            "on",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**child_env(), "PYTHONPATH": _without_bm25s(tmp_path)},
        timeout=60,
    )
    assert served.returncode == 1
    assert "pip install 'toolkiln[search]'" in served.stderr


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_auto_without_bm25s_lists_every_tool(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path, mode: str
) -> None:
    write_catalog(make_tool, TOOLS, 0)
    await anyio.to_thread.run_sync(build, tools_dir, config_dir)
    shadow = _without_bm25s(tmp_path)
    async with connect(config_dir, mode, "--search-above", "2", PYTHONPATH=shadow) as client:
        assert await listed_names(client) == set(TOOLS)
        direct = await client.call_tool("echo", {"word": "a"})
        assert text_of(direct) == "echo:a"
