"""Rich results (runner/content.py): images, audio, resources and several items, from a
script's stdout or a Python tool's return value, through the SDK's real client. A file
an item names is read from the tool's workspace (tests/security/test_content_files.py
tries everything else)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
CHART = """#!/bin/bash
# Tool: chart
# Description: Draw a chart
cat <<'JSON'
{"content": [
  {"type": "text", "text": "Sales by month:"},
  {"type": "image", "path": "chart.png"},
  {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
  {"type": "resource", "resource": {"uri": "file:///chart.png", "path": "chart.png"}},
  {"type": "resource_link", "uri": "test://sales", "name": "sales"}
 ],
 "structuredContent": {"months": 12}}
JSON
"""
MISSING_FILE = """#!/bin/bash
# Tool: missing_file
# Description: Names a file that is not there
echo '{"content": [{"type": "image", "path": "nowhere.png"}]}'
"""
BAD_ITEM = """#!/bin/bash
# Tool: bad_item
# Description: An image without its MIME type or data
echo '{"content": [{"type": "text", "text": "ok"}, {"type": "image"}]}'
"""
NOT_RICH = """#!/bin/bash
# Tool: not_rich
# Description: JSON that only looks like a result: it has a key of its own
echo '{"content": [{"type": "text", "text": "x"}], "page": 2}'
"""
PYTHON = '''"""Return a picture and a failure flag, as a Python tool.

@param fail: Report an error (type: boolean, default: false)
"""


def execute(params):
    return {"content": [{"type": "image", "path": "chart.png"}], "isError": params["fail"]}
'''


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    # The default workspace of a script at the top of tools/ is {TOOL_DIR}/workspace.
    (tools_dir / "workspace").mkdir()
    (tools_dir / "workspace" / "chart.png").write_bytes(PNG)
    make_tool("chart.sh", CHART)
    make_tool("missing_file.sh", MISSING_FILE)
    make_tool("bad_item.sh", BAD_ITEM)
    make_tool("not_rich.sh", NOT_RICH)
    make_tool("picture.py", PYTHON, executable=False)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_every_kind_of_content_item_reaches_the_client(served: Path) -> None:
    async with connect(served, "auto") as client:
        result = await client.call_tool("chart", {})
    text, image, audio, resource, link = result.content
    assert not result.is_error
    assert text.type == "text" and text.text == "Sales by month:"
    assert image.type == "image" and image.mime_type == "image/png"
    assert base64.b64decode(image.data) == PNG
    assert audio.type == "audio" and audio.mime_type == "audio/wav"
    assert resource.type == "resource" and resource.resource.mime_type == "image/png"
    assert base64.b64decode(resource.resource.blob) == PNG  # type: ignore[union-attr]
    assert link.type == "resource_link" and str(link.uri) == "test://sales"
    assert result.structured_content == {"months": 12}


async def test_python_tools_return_rich_results_and_flag_errors(served: Path) -> None:
    async with connect(served, "auto") as client:
        fine = await client.call_tool("picture", {})
        failed = await client.call_tool("picture", {"fail": True})
    assert [item.type for item in fine.content] == ["image"] and not fine.is_error
    assert failed.is_error and failed.content[0].type == "image"


async def test_broken_rich_results_are_tool_errors_that_say_why(served: Path) -> None:
    async with connect(served, "auto") as client:
        missing = await client.call_tool("missing_file", {})
        bad = await client.call_tool("bad_item", {})
        plain = await client.call_tool("not_rich", {})
    assert missing.is_error
    assert "content item 1: 'nowhere.png' is not in" in text_of(missing)
    assert "workspace_config.allowed_paths in" in text_of(missing)
    assert bad.is_error
    assert "content item 2" in text_of(bad) and "not valid MCP content" in text_of(bad)
    assert not plain.is_error and plain.structured_content == {
        "content": [{"type": "text", "text": "x"}],
        "page": 2,
    }


def test_toolkiln_call_prints_a_summary_of_rich_results(served: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("call", "chart")
    assert result.exit_code == 0, result.output
    assert "Sales by month:" in result.output
    assert "[image image/png, 69 bytes]" in result.output
    assert "[resource link test://sales]" in result.output
