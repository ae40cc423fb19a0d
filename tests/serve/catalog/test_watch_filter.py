"""serve/catalog/watch.py's filter: a change in a folder a tool may write starts no rebuild."""

from __future__ import annotations

from pathlib import Path

from watchfiles import Change

from tests.conftest import MakeTool
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.files import catalog_path
from toolkiln.runner import Registry
from toolkiln.serve.catalog.watch import _Filter

TOOL = """\
#!/bin/bash
# Tool: notes
# Description: Writes notes
echo saved
"""


def test_a_change_in_a_workspace_is_not_a_change_of_the_tools(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("notes.sh", TOOL)
    discover_tools(tools_dir, config_dir)
    build_catalog(config_dir, tools_dir)
    registry = Registry.load(catalog_path(config_dir))
    watched = _Filter([tools_dir.resolve()], [], registry.writable_folders)
    assert watched(Change.added, str(tools_dir / "later.sh"))
    assert watched(Change.modified, str(tools_dir / "notes.sh"))
    assert not watched(Change.added, str(tools_dir / "workspace" / "greeter.py"))
    assert not watched(Change.added, str(tools_dir / "workspace"))
    assert not watched(Change.added, str(tools_dir / "workspace" / "deep" / "x.sh"))
