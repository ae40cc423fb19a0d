"""A Windmill script's resource parameter (typed by a TypedDict of the module) reaches
`main` as the dict the client sent, through the SDK client."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("mode", ["legacy", "auto"])]

SCRIPT = '''
from typing import TypedDict


class redis(TypedDict):
    host: str
    port: int


def main(server: redis, key: str, ttl: int = 60) -> dict:
    """Describe what would be stored where."""
    kind = type(server).__name__
    return {"host": server["host"], "port": server["port"], "key": key, "ttl": ttl, "kind": kind}
'''


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("cache_put.py", SCRIPT, executable=False)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_a_typeddict_resource_arrives_as_a_dict(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        result = await client.call_tool(
            "cache_put", {"server": {"host": "cache-1 ünï", "port": 6380}, "key": "-k 'x'"}
        )
        refused = await client.call_tool("cache_put", {"server": "cache-1", "key": "k"})
    assert result.structured_content == {
        "host": "cache-1 ünï", "port": 6380, "key": "-k 'x'", "ttl": 60, "kind": "dict"
    }  # fmt: skip
    assert refused.is_error
