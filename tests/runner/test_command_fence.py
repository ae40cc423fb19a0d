"""runner/command_fence.py and build/run_command.py: run_command works and names files only
inside its roots, and never where a tool may write."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from tests.runner.test_command import REPO, make_project, refusal, stdout
from toolkiln.errors import BuildError
from toolkiln.files import catalog_path
from toolkiln.runner import Registry, RunSettings, ToolResult, ToolRunner


def add_notes_tool(project: Path) -> Path:
    """The sample notes tool in `project`; returns its workspace (which it may write)."""
    shutil.copytree(REPO / "tools" / "notes", project / "tools" / "notes")
    (project / "config" / "tools").mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "config" / "tools" / "notes.json", project / "config" / "tools" / "notes.json")
    return project / "tools" / "notes" / "workspace"


def call(runner: ToolRunner, command: str, **arguments: str) -> ToolResult:
    return anyio.run(runner.call, "run_command", {"command": command, **arguments})


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret"
    path.write_text("outside\n")
    return path


@pytest.mark.parametrize(
    "command",
    [
        "cat {secret}",
        "cat ../secret",
        "cat sub/../../secret",
        "cat link",
        "cat ~/.bashrc",
        "head --lines=1 {secret}",
        "wc --files0-from={secret}",
        "grep -f{secret} x",
        "ls -la {parent}",
    ],
)
def test_arguments_naming_files_outside_the_roots_are_refused(
    tmp_path: Path, secret: Path, command: str
) -> None:
    runner = make_project(tmp_path, {"allow": ["cat", "head", "wc", "grep", "ls"]})
    (tmp_path / "work" / "sub").mkdir()
    (tmp_path / "work" / "link").symlink_to(secret)
    text = refusal(call(runner, command.format(secret=secret, parent=tmp_path)))
    assert "a command may only name files inside the roots" in text
    assert "outside the allowed roots" in text


def test_files_inside_the_roots_are_named_freely(tmp_path: Path) -> None:
    runner = make_project(tmp_path, {"allow": ["cat", "echo"]})
    (tmp_path / "work" / "sub").mkdir()
    (tmp_path / "work" / "a.txt").write_text("a\n")
    (tmp_path / "work" / "inside").symlink_to(tmp_path / "work" / "a.txt")
    assert stdout(call(runner, "cat a.txt sub/../a.txt inside ./a.txt")) == "a\na\na\na\n"
    assert stdout(call(runner, "echo hello -n x=y")) == "hello -n x=y\n"  # words that name nothing


def test_a_tools_workspace_is_no_place_for_run_command(tmp_path: Path) -> None:
    workspace = add_notes_tool(tmp_path)
    (workspace / "repo").mkdir(parents=True)
    (workspace / "note.txt").write_text("planted\n")
    runner = make_project(tmp_path, {"allow": ["cat", "pwd"], "roots": ["."]})
    assert runner.registry.catalog.run_command is not None
    assert runner.registry.catalog.run_command.tool_writable == ["../tools/notes/workspace"]
    for workdir in ["tools/notes/workspace", "tools/notes/workspace/repo", str(workspace)]:
        text = refusal(call(runner, "pwd", workdir=workdir))
        assert "a folder a tool may write" in text
    assert "a folder a tool may write" in refusal(call(runner, "cat tools/notes/workspace/note.txt"))
    assert not call(runner, "pwd", workdir="tools").is_error


def test_a_git_folder_in_a_tools_workspace_is_refused(tmp_path: Path) -> None:
    workspace = add_notes_tool(tmp_path)
    subprocess.run(["git", "init", "-q", str(workspace / "evil")], check=True)
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / ".git").write_text(f"gitdir: {workspace / 'evil' / '.git'}\n")
    runner = make_project(tmp_path, {"allow": ["git"]})
    text = refusal(call(runner, "git status"))
    assert "keeps its data in" in text and "a folder a tool may write" in text


def test_build_refuses_a_root_inside_a_tools_workspace(tmp_path: Path) -> None:
    add_notes_tool(tmp_path)
    with pytest.raises(BuildError) as error:
        make_project(tmp_path, {"allow": ["ls"], "roots": ["tools/notes/workspace/sub"]})
    message = str(error.value)
    assert "run_command.roots: 'tools/notes/workspace/sub'" in message
    assert "tool 'notes' may write" in message and "notes.json" in message


def test_a_catalog_built_before_the_fence_does_not_load(tmp_path: Path) -> None:
    make_project(tmp_path, {"allow": ["ls"]})
    path = catalog_path(tmp_path / "config")
    catalog = json.loads(path.read_text())
    del catalog["run_command"]["tool_writable"]
    path.write_text(json.dumps(catalog))
    with pytest.raises(Exception, match="tool_writable"):
        ToolRunner(Registry.load(path), RunSettings())
