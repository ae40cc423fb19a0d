"""Hot reload: `serve --watch` picks up added, edited, broken and removed tools, and tells
clients of both eras; calls in flight finish."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client

from tests.conftest import MakeTool
from tests.serve.http_server import http_server
from tests.serve.stdio_server import connect, text_of

pytestmark = pytest.mark.anyio

WAIT = 20


def tool(description: str, output: str = "ok", delay: float = 0) -> str:
    return f"""\
#!/bin/bash
# Tool: t
# Description: {description}
# @param x: Anything (type: string)
sleep {delay}
echo {output}
"""


async def wait_for(condition: Callable[[], Any]) -> None:
    with anyio.fail_after(WAIT):
        while not await condition():
            await anyio.sleep(0.05)


class ToolListChanges:
    def __init__(self) -> None:
        self.count = 0

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.count += 1


async def descriptions(client: Client) -> dict[str, str]:
    return {t.name: t.description or "" for t in (await client.list_tools(cache_mode="bypass")).tools}


async def test_handshake_era_client_follows_every_change(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("a/run.sh", tool("first"))
    changes = ToolListChanges()
    watch = ["--watch", "--tools-dir", str(tools_dir)]
    async with connect(config_dir, "legacy", *watch, client={"message_handler": changes}) as client:
        assert await descriptions(client) == {"a": "first"}

        make_tool("b/run.sh", tool("second"))
        await wait_for(lambda: _has(client, {"a": "first", "b": "second"}))
        assert changes.count >= 1

        seen = changes.count
        make_tool("b/run.sh", tool("second, edited"))
        await wait_for(lambda: _has(client, {"a": "first", "b": "second, edited"}))
        assert changes.count > seen

        # A broken edit keeps b as it last worked; the next good change still lands.
        (tools_dir / "b" / "run.sh").write_text("#!/bin/bash\n# Tool: t\n# @param x: (type: colour)\n")
        make_tool("a/run.sh", tool("first, edited"))
        await wait_for(lambda: _has(client, {"a": "first, edited", "b": "second, edited"}))

        seen = changes.count
        (tools_dir / "b" / "run.sh").unlink()
        await wait_for(lambda: _has(client, {"a": "first, edited"}))
        assert changes.count > seen


async def test_modern_era_listener_hears_of_changes(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("a/run.sh", tool("first"))
    watch = ["--watch", "--tools-dir", str(tools_dir)]
    async with (
        connect(config_dir, "auto", *watch) as client,
        client.listen(tools_list_changed=True) as events,
    ):
        make_tool("b/run.sh", tool("second"))
        with anyio.fail_after(WAIT):
            await events.__anext__()
        assert await descriptions(client) == {"a": "first", "b": "second"}


async def test_a_call_in_flight_finishes_across_a_reload(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("slow/run.sh", tool("slow", output="finished", delay=1.5))
    watch = ["--watch", "--tools-dir", str(tools_dir)]
    async with connect(config_dir, "legacy", *watch) as client:
        results: list[Any] = []

        async def call() -> None:
            results.append(await client.call_tool("slow", {}))

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            await anyio.sleep(0.3)
            make_tool("fresh/run.sh", tool("new"))
            await wait_for(lambda: _has(client, {"slow": "slow", "fresh": "new"}))
    assert text_of(results[0]) == "finished"


def test_a_broken_edit_is_logged_with_file_and_line(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    make_tool("a/run.sh", tool("first"))
    state = tmp_path / "state"
    state.mkdir()
    with http_server(config_dir, state, "--watch", "--tools-dir", str(tools_dir)) as running:
        (tools_dir / "a" / "run.sh").write_text(
            "#!/bin/bash\n# Tool: t\n# Description: x\n# @param x: (type: colour)\n"
        )
        make_tool("b/run.sh", tool("second"))  # a good change after it proves the rebuild ran
        deadline = time.monotonic() + WAIT
        while len(tools := running.rpc("tools/list").json()["result"]["tools"]) < 2:
            assert time.monotonic() < deadline, "the watcher never rebuilt"
            time.sleep(0.05)
        running.stop()
        log = running.stderr()
    assert [(t["name"], t["description"]) for t in tools] == [("a", "first"), ("b", "second")]
    assert "a/run.sh:4: unknown type 'colour'" in log
    config = json.loads((config_dir / "tools" / "a.json").read_text())
    assert config["script_config"]["description"] == "first"


async def _has(client: Client, expected: dict[str, str]) -> bool:
    return await descriptions(client) == expected
