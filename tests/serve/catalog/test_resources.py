"""State resources (seeds/000 `--state`), the catalog, and update notifications in both eras."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.shared.subscriptions import ResourceUpdated

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio

COUNTER = """\
#!/bin/bash
# A stateful help-json tool: its count lives in $COUNTER_FILE.
case "$1" in
  --help)
    echo '{"description": "Count up", "state": true}'
    echo '{"by": {"value_type": "integer", "required": false, "default_value": 1}}' >&2
    exit 0 ;;
  --state)
    echo "{\\"count\\": $(cat "$COUNTER_FILE" 2>/dev/null || echo 0), \\"by\\": \\"${by:-unset}\\"}"
    exit 0 ;;
esac
echo $(( $(cat "$COUNTER_FILE" 2>/dev/null || echo 0) + by )) > "$COUNTER_FILE"
cat "$COUNTER_FILE"
"""

PLAIN = """\
#!/bin/bash
if [ "$1" = "--help" ]; then echo '{"description": "No state"}'; echo '{}' >&2; exit 0; fi
echo plain
"""


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("utils/counter.sh", COUNTER)
    make_tool("plain.sh", PLAIN)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


STATE_URI = "toolkiln://tools/utils__counter/state"
MCPD_URI = "mcpd://utils/counter.sh/state"


def read_json(result: types.ReadResourceResult) -> Any:
    [content] = result.contents
    assert isinstance(content, types.TextResourceContents)
    assert content.mime_type == "application/json"
    return json.loads(content.text)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_state_is_a_resource_read_before_and_after_a_call(
    served: Path, mode: str, tmp_path: Path
) -> None:
    async with connect(served, mode, COUNTER_FILE=str(tmp_path / "count")) as client:
        uris = {str(resource.uri) for resource in (await client.list_resources()).resources}
        before = read_json(await client.read_resource(STATE_URI))
        assert text_of(await client.call_tool("utils__counter", {"by": 5})) == "5"
        after = read_json(await client.read_resource(MCPD_URI))
    assert {STATE_URI, MCPD_URI, "toolkiln://catalog", "scripts://"} <= uris
    assert not any("plain" in uri for uri in uris)
    # --state gets no options: not even the default of `by` reaches its env.
    assert before == {"count": 0, "by": "unset"}
    assert after == {"count": 5, "by": "unset"}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_catalog_lists_every_tool_with_source_and_schema(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        catalog = read_json(await client.read_resource("toolkiln://catalog"))
        scripts = read_json(await client.read_resource("scripts://"))
    assert catalog == scripts
    assert [(t["name"], t["source"], t["state"]) for t in catalog] == [
        ("plain", "plain.sh", False),
        ("utils__counter", "utils/counter.sh", True),
    ]
    assert catalog[1]["inputSchema"]["properties"]["by"]["default"] == 1


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_unknown_resource_is_an_error(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        with pytest.raises(MCPError, match="Resource not found"):
            await client.read_resource("toolkiln://tools/plain/state")


async def test_handshake_era_subscribers_hear_of_each_call(served: Path, tmp_path: Path) -> None:
    updates: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(str(message.params.uri))

    async with connect(
        served, "legacy", COUNTER_FILE=str(tmp_path / "count"), client={"message_handler": on_message}
    ) as client:
        with warnings.catch_warnings():  # deprecated by 2026-07-28, still what 2025-11-25 clients do
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.subscribe_resource(STATE_URI)
        await client.call_tool("utils__counter", {})
        await client.call_tool("plain", {})
        with anyio.fail_after(10):
            while not updates:
                await anyio.sleep(0.02)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.unsubscribe_resource(STATE_URI)
        await client.call_tool("utils__counter", {})
        await anyio.sleep(0.3)
    assert updates == [STATE_URI]


async def test_modern_era_listeners_hear_of_each_call(served: Path, tmp_path: Path) -> None:
    server = connect(served, "auto", COUNTER_FILE=str(tmp_path / "count"))
    async with server as client, client.listen(resource_subscriptions=[STATE_URI]) as subscription:
        await client.call_tool("utils__counter", {})
        with anyio.fail_after(10):
            event = await subscription.__anext__()
    assert event == ResourceUpdated(uri=STATE_URI)
