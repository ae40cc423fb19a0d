"""A folder of scripts, end to end from the command line: every command that reads a
project takes DIR (`call`, `audit`, `new`, `tasks`, `where`, `enable`, `disable`,
`fallback`), and every hint printed in folder mode works when run as printed."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from mcp import Client, StdioServerParameters

from tests.conftest import child_env
from tests.serve.stdio_server import text_of
from toolkiln.cli import cli
from toolkiln.project import ProjectError, create_project
from toolkiln.served_folder import owned_config_dir

SLUG = """#!/bin/bash
# Tool: slug
# Description: Make a slug
# @param text: the text (type: string, required: true)
echo "${text// /-}"
"""
UNDECLARED = '#!/usr/bin/env python3\nimport sys\nprint("legacy", *sys.argv[1:])\n'


@pytest.fixture(autouse=True)
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    for key in ("TOOLKILN_TOOLS_DIR", "TOOLKILN_CONFIG_DIR", "TOOLKILN_STATE_URL"):
        monkeypatch.delenv(key, raising=False)
    return home


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "slug.sh").write_text(SLUG)
    (scripts / "slug.sh").chmod(0o755)
    return scripts


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def hinted(output: str, command: str) -> list[str]:
    """The words of the first `toolkiln COMMAND ...` the output prints (up to a backquote,
    a parenthesis, a semicolon or `&&`)."""
    match = re.search(rf"toolkiln ({command}\b[^`();&\n]*)", output)
    assert match, f"no `toolkiln {command}` in:\n{output}"
    return shlex.split(match.group(1))


def test_call_audit_tasks_and_where_take_dir(folder: Path) -> None:
    assert run("discover", str(folder)).exit_code == 0
    assert run("build", str(folder)).exit_code == 0
    called = run("call", "slug", str(folder), "text=a b c")
    assert called.exit_code == 0, called.output
    assert called.output.strip() == "a-b-c"
    where = json.loads(run("where", str(folder), "--json").output)
    config = owned_config_dir(folder)
    assert where["configs"] == str(config / "tools")
    assert where["build"] == str(config / "tools.json")
    assert where["audit_log"] == str(config / "logs" / "audit.jsonl")
    assert where["mode"] == "folder of scripts"
    assert where["env_file"] == str(folder / ".env")
    no_log = run("audit", str(folder))
    assert no_log.exit_code == 1 and str(config / "logs" / "audit.jsonl") in no_log.output
    assert "unexpected extra argument" not in no_log.output
    tasks = run("tasks", "list", str(folder))
    assert tasks.exit_code == 0, tasks.output


def test_the_hint_without_dir_names_the_folder_and_works(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run("discover", str(folder))
    run("build", str(folder))
    monkeypatch.chdir(folder)
    failed = run("call", "slug", "text=x")
    assert failed.exit_code == 1
    assert "toolkiln call slug . text=x" in failed.output
    assert run("call", "slug", ".", "text=x y").output.strip() == "x-y"


def test_the_hints_of_a_folder_name_dir_and_work_as_printed(folder: Path) -> None:
    not_built = run("call", "slug", str(folder), "text=x")
    assert not_built.exit_code == 1
    for command in ("discover", "build"):
        words = hinted(not_built.output, command)
        assert words[-1] == str(folder), not_built.output
        assert run(*words).exit_code == 0
    assert run("call", "slug", str(folder), "text=x").exit_code == 0
    (folder / "legacy").write_text(UNDECLARED)
    (folder / "legacy").chmod(0o755)
    discovered = run("discover", str(folder))
    assert "config/server.json" not in discovered.output
    fallback = hinted(discovered.output, "fallback on")
    assert fallback == ["fallback", "on", str(folder)]
    assert run(*fallback).exit_code == 0
    assert "legacy" in run("list", str(folder)).output
    listing = run("discover", str(folder), "--list")
    assert "config/server.json" not in listing.output


def test_enable_disable_and_fallback_edit_the_hidden_config_and_rebuild(folder: Path) -> None:
    run("discover", str(folder))
    run("build", str(folder))
    disabled = run("disable", "slug", str(folder))
    assert disabled.exit_code == 0, disabled.output
    refused = run("call", "slug", str(folder), "text=x")
    assert refused.exit_code == 1
    words = hinted(refused.output, "enable")
    assert words == ["enable", "slug", str(folder)]
    assert run(*words).exit_code == 0
    assert run("call", "slug", str(folder), "text=x").exit_code == 0
    (folder / "legacy").write_text(UNDECLARED)
    (folder / "legacy").chmod(0o755)
    assert run("fallback", "on", str(folder)).exit_code == 0
    server = json.loads((owned_config_dir(folder) / "server.json").read_text())
    assert server["discovery"]["fallback"] == ["."]
    assert run("call", "legacy", str(folder), 'args=["hi"]').output.strip() == "legacy hi"
    assert run("fallback", "off", str(folder)).exit_code == 0
    assert "legacy" not in run("list", str(folder)).output
    unknown = run("enable", "nope", str(folder))
    assert unknown.exit_code == 1 and "slug" in unknown.output


@pytest.mark.parametrize("dialect", ["annotations", "help-json", "python", "kit"])
def test_new_builds_so_the_call_it_suggests_works_at_once(folder: Path, dialect: str) -> None:
    if dialect == "kit":
        pytest.importorskip("shutil").which("node") or pytest.skip("no node")
    created = run("new", "greet", str(folder), "--dialect", dialect)
    assert created.exit_code == 0, created.output
    words = hinted(created.output, "call")
    assert str(folder) in words
    called = run(*words)
    assert called.exit_code == 0, called.output


def test_new_builds_in_a_project_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    create_project(tmp_path / "project")
    monkeypatch.chdir(tmp_path / "project")
    created = run("new", "greet")
    assert created.exit_code == 0, created.output
    assert run(*hinted(created.output, "call")).exit_code == 0


def test_init_merge_refuses_a_folder_of_scripts_and_says_how_to_serve_it(folder: Path) -> None:
    with pytest.raises(ProjectError, match="toolkiln serve"):
        create_project(folder, merge=True)
    assert not (folder / "tools").exists() and not (folder / "config").exists()
    refused = run("init", "--merge", str(folder))
    assert refused.exit_code == 1
    words = hinted(refused.output, "serve")
    assert words == ["serve", str(folder)]


def test_doctor_fixes_in_folder_mode_name_dir_and_work(folder: Path) -> None:
    checked = run("doctor", str(folder))
    words = hinted(checked.output, "discover")
    assert words == ["discover", str(folder)], checked.output
    assert run(*words).exit_code == 0
    (folder / "idle.sh").write_text(SLUG.replace("slug", "idle"))  # not executable: a fix to apply
    fixable = run("doctor", str(folder))
    assert hinted(fixable.output, "doctor") == ["doctor", str(folder), "--fix"]
    assert run("doctor", str(folder), "--fix").exit_code == 0
    assert "config/" not in run("doctor", str(folder)).output.replace(str(owned_config_dir(folder)), "")


@pytest.mark.anyio
async def test_a_served_folder_words_the_hints_its_client_gets_for_that_folder(
    folder: Path, config_home: Path
) -> None:
    """An MCP client of `serve DIR` gets hints that name DIR: the commands it passes on
    to the user work as printed (`toolkiln build` alone would find no project)."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolkiln", "serve", str(folder)],
        env={**child_env(), "XDG_CONFIG_HOME": str(config_home)},
    )
    async with Client(params, mode="auto") as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == ["slug"]
        (folder / "slug.sh").unlink()
        result = await client.call_tool("slug", {"text": "a b"})
    assert result.is_error
    for command in ("discover", "build"):
        words = hinted(text_of(result), command)
        assert words == [command, str(folder)], text_of(result)
        assert run(*words).exit_code == 0
    assert "slug" not in run("list", str(folder)).output
