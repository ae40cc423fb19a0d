"""The workspace sandbox: path arguments resolved and checked before a script runs."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from tests.conftest import MakeTool
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.files import catalog_path
from toolkiln.model import WorkspaceConfig
from toolkiln.runner import Registry, RunSettings, ToolRunner
from toolkiln.runner.workspace import WorkspaceError, resolve_path


@pytest.fixture
def tool_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "tool"
    (folder / "workspace" / "sub").mkdir(parents=True)
    (folder / "workspace" / "note.txt").write_text("hi")
    (tmp_path / "outside.txt").write_text("secret")
    return folder


DEFAULT = WorkspaceConfig()


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("note.txt", "note.txt"),
        ("sub/../note.txt", "note.txt"),
        ("sub/new.txt", "sub/new.txt"),
        ("", ""),
        (".", ""),
    ],
)
def test_relative_paths_land_in_the_workspace(tool_dir: Path, value: str, expected: str) -> None:
    resolved = resolve_path(value, DEFAULT, tool_dir)
    assert resolved == str((tool_dir / "workspace" / expected).resolve()).rstrip("/")


@pytest.mark.parametrize("value", ["../run.sh", "sub/../../x", "../../outside.txt", "../workspace2/x"])
def test_dot_dot_that_climbs_out_is_refused(tool_dir: Path, value: str) -> None:
    with pytest.raises(WorkspaceError, match="leads outside the workspace"):
        resolve_path(value, DEFAULT, tool_dir)


def test_absolute_paths_need_permission_and_must_still_be_inside(tool_dir: Path) -> None:
    inside = str(tool_dir / "workspace" / "note.txt")
    with pytest.raises(WorkspaceError, match="is absolute"):
        resolve_path(inside, DEFAULT, tool_dir)
    allowed = WorkspaceConfig(allow_absolute_paths=True)
    assert resolve_path(inside, allowed, tool_dir) == inside
    with pytest.raises(WorkspaceError, match="leads outside"):
        resolve_path("/etc/passwd", allowed, tool_dir)


def test_symlinks_that_lead_out_are_refused(tool_dir: Path) -> None:
    workspace = tool_dir / "workspace"
    (workspace / "escape").symlink_to(tool_dir.parent / "outside.txt")
    (workspace / "alias").symlink_to(workspace / "note.txt")
    with pytest.raises(WorkspaceError, match="symlink that leads outside"):
        resolve_path("escape", DEFAULT, tool_dir)
    assert resolve_path("alias", DEFAULT, tool_dir) == str(workspace / "note.txt")
    strict = WorkspaceConfig(follow_symlinks=False)
    with pytest.raises(WorkspaceError, match="does not follow them"):
        resolve_path("alias", strict, tool_dir)


def test_several_allowed_folders_and_the_tool_dir_placeholder(tool_dir: Path, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    config = WorkspaceConfig(allowed_paths=["{TOOL_DIR}/workspace", str(shared)], allow_absolute_paths=True)
    assert resolve_path(str(shared / "a"), config, tool_dir) == str(shared / "a")
    assert resolve_path("note.txt", config, tool_dir) == str(tool_dir / "workspace" / "note.txt")
    relative = WorkspaceConfig(allowed_paths=["workspace/sub"])
    assert resolve_path("x", relative, tool_dir) == str(tool_dir / "workspace" / "sub" / "x")
    with pytest.raises(WorkspaceError, match="allows no paths"):
        resolve_path("x", WorkspaceConfig(allowed_paths=[]), tool_dir)


READER = """\
#!/bin/bash
# Tool: reader
# Description: Print a file from the workspace
# @param file: Which (type: path, required: true)
echo "ran" >> "$RAN"
echo "$file"
"""


def test_a_refused_path_never_runs_the_script(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_tool("reader/run.sh", READER)
    (tools_dir / "reader" / "workspace").mkdir()
    discover_tools(tools_dir, config_dir)
    schema_config = json.loads((config_dir / "tools" / "reader.json").read_text())
    assert schema_config["script_config"]["parameters"][0]["kind"] == "path"
    build_catalog(config_dir, tools_dir)
    monkeypatch.setenv("RAN", str(tmp_path / "ran"))
    runner = ToolRunner(Registry.load(catalog_path(config_dir)), RunSettings())
    refused = anyio.run(runner.call, "reader", {"file": "../../etc/passwd"})
    allowed = anyio.run(runner.call, "reader", {"file": "a.txt"})
    assert refused.is_error
    assert refused.text.startswith(
        "Refused by the workspace of tool 'reader':\n- file: '../../etc/passwd' leads"
    )
    assert allowed.text == str((tools_dir / "reader" / "workspace" / "a.txt").resolve())
    assert (tmp_path / "ran").read_text().split() == ["ran"]
