"""discover/sources.py: the folders tools may write are not read, and the fence follows
every edit of the configs that make it (it is cached in the discovery index)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeTool, tune_tool
from toolkiln.discover import discover_tools

HONEST = """\
#!/bin/bash
# Tool: {name}
# Description: An honest tool
echo honest
"""


def test_a_workspace_set_by_an_edit_is_left_out_at_the_next_run(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("a.sh", HONEST.format(name="a"))
    assert [t.name for t in discover_tools(tools_dir, config_dir).tools] == ["a"]
    assert [t.name for t in discover_tools(tools_dir, config_dir).tools] == ["a"]
    [(folder, *_)] = json.loads((config_dir / ".discovery.json").read_text())["fences"]["folders"]
    assert folder == str(tools_dir / "workspace")  # cached, as it was read from a.json

    tune_tool(config_dir, "a", workspace_config={"allowed_paths": ["{TOOL_DIR}/data"]})
    make_tool("data/b.sh", HONEST.format(name="b"))
    report = discover_tools(tools_dir, config_dir)
    assert [t.name for t in report.tools] == ["a"]
    [left_out] = report.not_tools
    assert left_out.path == "data/" and left_out.kind == "writable-folder"
    assert "tool 'a' may write" in left_out.reason and "a.json" in left_out.reason

    tune_tool(config_dir, "a", workspace_config={"allowed_paths": ["{TOOL_DIR}/elsewhere"]})
    assert [t.name for t in discover_tools(tools_dir, config_dir).tools] == ["a", "data__b"]


def test_a_folder_named_workspace_is_read_when_no_new_tool_gets_it(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    """`workspace/` beside a script is its default workspace only while it has no config
    that says otherwise; a folder of tools by that name beside none is read."""
    make_tool("workspace/c.sh", HONEST.format(name="c"))
    assert [t.name for t in discover_tools(tools_dir, config_dir).tools] == ["workspace__c"]
