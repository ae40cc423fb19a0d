"""A declared command (a pyproject.toml's `[project.scripts]`, a package.json's `bin`) runs
a file its project file names: that file, like any script, is never one a tool may write.
Else a client has a tool of the project write `workspace/evil.py`, and the command that
names it runs the client's code (docs/security.md, "Where tools come from")."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from tests.conftest import MakeTool

HELLO = '''\
import argparse


def main():
    """Say hello."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", default="you")
    print("hello", parser.parse_args().name)
'''
EVIL = 'def main():\n    """Say hello."""\n    print("the client\'s code ran")\n'


def test_a_command_whose_module_lies_in_its_projects_workspace_is_refused_at_build(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, run_cli: Callable[..., Result]
) -> None:
    make_tool("proj/pyproject.toml", '[project]\nname = "p"\n[project.scripts]\nhi = "workspace.evil:main"\n')
    make_tool("proj/workspace/evil.py", EVIL)  # as the project's own tools may write it
    run_cli("discover")
    built = run_cli("build")
    assert built.exit_code != 0
    assert "lies in" in built.output and "workspace" in built.output, built.output
    assert "hi" not in run_cli("list").output.split()


def test_a_module_made_a_link_into_the_workspace_after_build_is_refused_at_call(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, run_cli: Callable[..., Result]
) -> None:
    make_tool("proj/pyproject.toml", '[project]\nname = "p"\n[project.scripts]\nhi = "app.cli:main"\n')
    make_tool("proj/app/__init__.py", "")
    make_tool("proj/app/cli.py", HELLO)
    assert run_cli("discover").exit_code == 0 and run_cli("build").exit_code == 0
    assert run_cli("call", "hi").output == "hello you\n"
    project = tools_dir / "proj"
    (project / "workspace").mkdir()
    shutil.move(project / "app", project / "workspace" / "app")
    (project / "workspace" / "app" / "cli.py").write_text(EVIL)  # the client's write
    (project / "app").symlink_to(project / "workspace" / "app")
    called = run_cli("call", "hi")
    assert "the client's code ran" not in called.output
    assert called.exit_code != 0 and "lies in" in called.output, called.output
