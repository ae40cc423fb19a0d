"""Python-module tools through `toolkiln serve` and the SDK's real client, over stdio."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("mode", ["legacy", "auto"])]

LEADS = '''"""Score leads.

@param company: The company (type: string, required: true)
@param fail: Raise instead (type: boolean, default: false)
"""
import os

def execute(params):
    if params["fail"]:
        raise RuntimeError("the scoring service is down")
    return {
        "status": "success",
        "data": {"company": params["company"], "score": len(params["company"]), "pid": os.getpid()},
        "metadata": {"duration_sec": 0.5, "cost_usd": 0.01, "items_processed": 1},
    }
'''


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("leads.py", LEADS, executable=False)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_envelope_maps_to_structured_content_and_meta_on_one_warm_worker(
    served: Path, mode: str
) -> None:
    async with connect(served, mode) as client:
        tools = (await client.list_tools()).tools
        results = [
            await client.call_tool("leads", {"company": name}) for name in ("acme", "globex", "initech")
        ]
        failed = await client.call_tool("leads", {"company": "x", "fail": True})
        after = await client.call_tool("leads", {"company": "umbrella"})
    assert tools[0].meta is not None and tools[0].meta["toolkiln/dialect"] == "python"
    assert [result.structured_content["score"] for result in results if result.structured_content] == [
        4,
        6,
        7,
    ]
    assert (
        len({result.structured_content["pid"] for result in [*results, after] if result.structured_content})
        == 1
    )
    assert '"company": "acme"' in text_of(results[0])
    meta = results[0].meta
    assert meta is not None
    assert (meta["duration_sec"], meta["cost_usd"], meta["items_processed"]) == (0.5, 0.01, 1)
    assert failed.is_error
    assert text_of(failed) == (
        "Tool 'leads' raised: RuntimeError: the scoring service is down (leads.py, line 10, in execute)"
    )
