"""The readings of this round, end to end: discovered, built, then called through the
real MCP SDK client, each script printing the words it was given, so that the test sees
the arguments reach it exactly as it reads them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.conventions.base import Candidate, NotATool, Probe
from toolkiln.conventions.by_hand import node_argv
from toolkiln.conventions.by_hand.node_argv_read import read_node_argv
from toolkiln.discover import discover_tools
from toolkiln.interpreters import find_interpreter

# A flag tested as the first word, then two positionals the usage line names.
SEARCH = """\
#!/bin/bash
# Usage: search-and-replace [-w] <term> <replacement>
#
# Replace a term in the files that hold it.
word=""
if [ "$1" == "-w" ]; then
  word="$1"
  shift 1
fi
printf '%s\\n' "$word" "$1" "$2" "$#"
"""
# Words handed on to another program, named by the usage line.
THANKS = """\
#!/bin/bash
# Usage: git thanks <range>
#
# List the authors of a range of commits.
env printf '%s\\n' "$@"
"""
# An argument the code only uses (`${1%/*}`): optional, as the usage line brackets it.
PROMOTE = """\
#!/bin/sh
# Usage: git promote [<remote>[/<branch>]]
#
# Push the current branch to a remote.
remote="${1%/*}"
printf '[%s] %s\\n' "$remote" "$#"
"""
# optparse: served from its plain --help (help-json's probe answered in plain text).
DIFF = """\
#!/usr/bin/env python3
\"\"\"Compare two files.\"\"\"
import json
import optparse
import sys

parser = optparse.OptionParser("usage: %prog [options] fromfile tofile")
parser.add_option("-u", action="store_true", default=False, help="A unified diff")
parser.add_option("-l", "--lines", type="int", default=3, help="Lines of context")
options, args = parser.parse_args()
if len(args) != 2:
    parser.error("give both files")
print(json.dumps([sys.argv[1:], options.u, options.lines, args]))
"""
# A click group inside a group: one tool per leaf, `db drop` on the command line.
NESTED = """\
#!/usr/bin/env python3
import json
import sys

import click


@click.group()
def cli():
    \"\"\"Manage things.\"\"\"


@cli.group()
def db():
    \"\"\"The database.\"\"\"


@db.command()
@click.argument("table")
@click.option("--force", is_flag=True, help="Even if it is not empty")
def drop(table, force):
    \"\"\"Drop a table.\"\"\"
    print(json.dumps([sys.argv[1:], table, force]))


if __name__ == "__main__":
    cli()
"""


@pytest.fixture
def built(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("search-and-replace", SEARCH)
    make_tool("git-thanks", THANKS)
    make_tool("git-promote", PROMOTE)
    make_tool("diff.py", DIFF)
    make_tool("things.py", NESTED)
    report = discover_tools(tools_dir, config_dir, probe_timeout=20)
    assert not report.errors, report.errors
    names = sorted(tool.name for tool in report.tools)
    assert names == ["diff", "git-promote", "git-thanks", "search-and-replace", "things_db_drop"]
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.mark.anyio
async def test_each_reading_reaches_its_script_as_it_reads_its_words(built: Path) -> None:
    async with connect(built, "auto") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        search = await client.call_tool("search-and-replace", {"w": True, "term": "a b", "replacement": "c"})
        dashed = await client.call_tool("search-and-replace", {"term": "x", "replacement": "-c"})
        plain = await client.call_tool("search-and-replace", {"term": "x", "replacement": "y"})
        thanks = await client.call_tool("git-thanks", {"range": "v1..v2"})
        promote = await client.call_tool("git-promote", {})
        diff = await client.call_tool("diff", {"u": True, "lines": "5", "fromfile": "a", "tofile": "b"})
        drop = await client.call_tool("things_db_drop", {"table": "users", "force": True})
    assert tools["search-and-replace"].input_schema["required"] == ["term", "replacement"]
    assert text_of(search).splitlines() == ["-w", "a b", "c", "2"]
    assert dashed.is_error and "would read it as an option" in text_of(dashed)  # it tests `$1` for `-w`
    assert text_of(plain).splitlines() == ["", "x", "y", "2"]
    assert tools["git-thanks"].input_schema["required"] == ["range"]
    assert text_of(thanks).splitlines() == ["v1..v2"]
    assert (
        "required" not in tools["git-promote"].input_schema
        or not tools["git-promote"].input_schema["required"]
    )
    assert text_of(promote).strip() == "[] 0"
    assert sorted(tools["diff"].input_schema["required"]) == ["fromfile", "tofile"]
    words, unified, lines, files = json.loads(text_of(diff))
    assert (unified, lines, files) == (True, 5, ["a", "b"])
    assert words[-2:] == ["a", "b"]
    assert json.loads(text_of(drop)) == [["db", "drop", "--force", "--", "users"], "users", True]


def test_typescript_by_hand_reads_an_annotated_binding() -> None:
    text = "const name: string = process.argv[2];\nconst out: string | undefined = process.argv[3];\n"
    reading = read_node_argv(text)
    assert {index: slot.name for index, slot in reading.slots.items()} == {1: "name", 2: "out"}


def test_typescript_by_hand_with_no_runner_says_what_to_install(make_tool: MakeTool, tools_dir: Path) -> None:
    path = make_tool("greet.ts", "// Greet.\nconst name: string = process.argv[2];\n", executable=False)
    candidate = Candidate(path, "greet.ts", path.stat())
    assert node_argv.claims(candidate)
    if find_interpreter(path) is not None:
        pytest.skip("a TypeScript runner is installed here")
    import anyio

    with pytest.raises(NotATool) as caught:
        anyio.run(node_argv.declare, candidate, Probe(timeout=1))
    assert caught.value.kind == "runtime-missing"
    assert "tsx" in caught.value.reason and "node 22.6" in caught.value.reason
    assert shutil.which("tsx") is None


MAIN = """\
import typer
import users

app = typer.Typer()
app.add_typer(users.app, name="users")

if __name__ == "__main__":
    app()
"""
USERS = """\
import typer

app = typer.Typer()


@app.command()
def create(user_name: str):
    print(user_name)


@app.command()
def delete(user_name: str, force: bool = False):
    print(user_name, force)
"""


def test_a_typer_app_added_from_a_module_beside_it(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("cli/main.py", MAIN)
    users = make_tool("cli/users.py", USERS, executable=False)
    first = discover_tools(tools_dir, config_dir, probes="none")
    assert sorted(tool.name for tool in first.tools) == ["cli__main_users_create", "cli__main_users_delete"]
    users.write_text(USERS + "\n\n@app.command()\ndef rename(old: str, new: str):\n    print(old, new)\n")
    again = discover_tools(tools_dir, config_dir, probes="none")  # users.py is main.py's companion
    assert "cli__main_users_rename" in {tool.name for tool in again.tools}


def test_a_module_linked_from_outside_the_tools_folder_is_not_read(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text(USERS)
    make_tool("main.py", MAIN)
    (tools_dir / "users.py").symlink_to(outside)
    report = discover_tools(tools_dir, config_dir, probes="none")
    assert not any(tool.name.startswith("main_") for tool in report.tools)
    assert [error.path for error in report.errors] == ["main.py"]  # none of its subcommands is served
