"""Command-line Python scripts (argparse, click) through `toolkiln serve` and the SDK's
real client: the arguments reach the script as its own parser reads them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio

# No shebang, not executable: it must run with Python, never "Exec format error".
ARGPARSE = '''\
"""Echo what argparse read."""
import argparse
import json
import sys

parser = argparse.ArgumentParser()
parser.add_argument("source")
parser.add_argument("rest", nargs="*")
parser.add_argument("--title", "-t", default="none")
parser.add_argument("-x", type=int, default=0)
parser.add_argument("--ratio", type=float)
parser.add_argument("--dry-run", action="store_true")
parser.add_argument("--no-cache", dest="cache", action="store_false")
parser.add_argument("--color", action=argparse.BooleanOptionalAction, default=True)
parser.add_argument("-v", "--verbose", action="count", default=0)
parser.add_argument("--tag", action="append", default=["base"])
parser.add_argument("--only", nargs="+")
args = parser.parse_args()
print(json.dumps({"args": vars(args), "argv": sys.argv[1:]}))
'''

SUBCOMMANDS = """\
import argparse
import json
import sys

def main():
    parser = argparse.ArgumentParser(description="Notes")
    parser.add_argument("--db", default="notes.db")
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add")
    add.add_argument("text")
    add.add_argument("--tag", action="append")
    rm = sub.add_parser("rm", help="Remove a note")
    rm.add_argument("id", type=int)
    rm.add_argument("--tag")
    rm.add_argument("--db", dest="rm_db")
    print(json.dumps({"args": vars(parser.parse_args()), "argv": sys.argv[1:]}))

if __name__ == "__main__":
    main()
"""

CLICK = '''\
#!/usr/bin/env python3
import json
import click

@click.group(invoke_without_command=True)
@click.option("--debug/--no-debug", default=False)
@click.pass_context
def cli(ctx, debug):
    """Greetings."""
    ctx.obj = {"debug": debug}
    if ctx.invoked_subcommand is None:
        click.echo(json.dumps({"args": {"debug": debug, "alone": True}}))

@cli.command()
@click.option("--name", "-n", required=True)
@click.option("--tag", "tags", multiple=True)
@click.option("--shout/--no-shout", default=True)
@click.option("-c", "--count", count=True)
@click.option("--level", type=click.Choice(["low", "high"]), default="low")
@click.argument("paths", nargs=-1)
@click.pass_obj
def greet_user(obj, name, tags, shout, count, level, paths):
    click.echo(json.dumps({"args": {**obj, "name": name, "tags": list(tags), "shout": shout,
                                    "count": count, "level": level, "paths": list(paths)}}))

if __name__ == "__main__":
    cli()
'''


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("echo_args.py", ARGPARSE, executable=False)
    make_tool("notes.py", SUBCOMMANDS)  # executable, no shebang
    make_tool("greet.py", CLICK)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, [str(error) for error in report.errors]
    build_catalog(config_dir, tools_dir)
    return config_dir


async def parsed(client: Any, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None, text_of(result)
    args: dict[str, Any] = result.structured_content["args"]
    return args


async def test_argparse_reads_each_value_as_sent(served: Path) -> None:
    async with connect(served, "auto") as client:
        plain = await parsed(client, "echo_args", {"source": "-rf /"})
        full = await parsed(
            client,
            "echo_args",
            {
                "source": "--title=evil",
                "rest": ["-x", "a b", "ünïcødé ✓", "'quoted\""],
                "title": "-t --dry-run",
                "x": -3,
                "ratio": -0.5,
                "dry_run": True,
                "cache": False,
                "color": False,
                "verbose": 3,
                "tag": ["-a", "b c"],
                "only": ["one", "two words"],
            },
        )
        refused = await client.call_tool("echo_args", {"source": "s", "only": ["ok", "--title=x"]})
        separator = await client.call_tool("echo_args", {"source": "s", "rest": ["a", "--"]})
    assert plain == {
        "source": "-rf /", "rest": [], "title": "none", "x": 0, "ratio": None, "dry_run": False,
        "cache": True, "color": True, "verbose": 0, "tag": ["base"], "only": None,
    }  # fmt: skip
    assert full == {
        "source": "--title=evil",
        "rest": ["-x", "a b", "ünïcødé ✓", "'quoted\""],
        "title": "-t --dry-run",
        "x": -3,
        "ratio": -0.5,
        "dry_run": True,
        "cache": False,
        "color": False,
        "verbose": 3,
        "tag": ["base", "-a", "b c"],  # argparse's append adds to its default
        "only": ["one", "two words"],
    }
    assert refused.is_error
    assert "'--title=x' starts with '-'" in text_of(refused)
    assert separator.is_error and "the value '--' cannot be passed" in text_of(separator)


async def test_argparse_subcommands_are_tools_that_reach_their_own_parser(served: Path) -> None:
    async with connect(served, "auto") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        added = await client.call_tool("notes_add", {"text": "-buy milk", "tag": ["x", "-y"]})
        removed = await parsed(client, "notes_rm", {"id": 7, "tag": "-z", "db": "-other.db", "rm_db": "--x"})
        missing = await client.call_tool("notes_rm", {})
        foreign = await client.call_tool("notes_rm", {"id": 1, "text": "from add"})
    assert "notes" not in tools  # a subcommand is required: no tool without one
    assert tools["notes_rm"].description == "Remove a note"
    assert tools["notes_add"].input_schema["required"] == ["text"]
    assert set(tools["notes_add"].input_schema["properties"]) == {"db", "text", "tag"}
    assert set(tools["notes_rm"].input_schema["properties"]) == {"db", "id", "tag", "rm_db"}
    assert not added.is_error, text_of(added)
    assert added.structured_content == {
        "args": {"db": "notes.db", "command": "add", "text": "-buy milk", "tag": ["x", "-y"]},
        "argv": ["add", "--tag=x", "--tag=-y", "--", "-buy milk"],
    }
    assert removed == {"db": "-other.db", "command": "rm", "id": 7, "tag": "-z", "rm_db": "--x"}
    assert missing.is_error and "'id' is required" in text_of(missing)
    assert foreign.is_error and "text" in text_of(foreign)  # another subcommand's argument


async def test_click_group_reads_each_value_as_sent(served: Path) -> None:
    async with connect(served, "auto") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        least = await parsed(client, "greet_greet-user", {"name": "Ann"})
        alone = await parsed(client, "greet", {"debug": True})
        most = await parsed(
            client,
            "greet_greet-user",
            {
                "debug": True,
                "name": "--name=-x",
                "tags": ["-t", "two words", "ü"],
                "shout": False,
                "count": 2,
                "level": "high",
                "paths": ["-p", "-- x", "a b"],
            },
        )
        missing = await client.call_tool("greet_greet-user", {})
    assert tools["greet"].description == "Greetings."
    assert set(tools["greet"].input_schema["properties"]) == {"debug"}
    assert alone == {"debug": True, "alone": True}
    assert least == {
        "debug": False, "name": "Ann", "tags": [], "shout": True, "count": 0, "level": "low", "paths": [],
    }  # fmt: skip
    assert most == {
        "debug": True,
        "name": "--name=-x",
        "tags": ["-t", "two words", "ü"],
        "shout": False,
        "count": 2,
        "level": "high",
        "paths": ["-p", "-- x", "a b"],
    }
    assert missing.is_error and "'name' is required" in text_of(missing)


HELP_JSON = """\
import json, os, sys
if sys.argv[1:] == ["--help"]:
    print(json.dumps({"description": "Shout"}))
    print(json.dumps({"word": {"type": "string", "required": True}}), file=sys.stderr)
    sys.exit(0)
print(json.dumps({"shouted": os.environ["word"].upper()}))
"""

ANNOTATED = """\
# Tool: whisper
# Description: Whisper a word
# @param word: The word (type: string, required: true)
import sys
print(sys.argv[1:])
"""


@pytest.fixture
def without_shebang(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("shout.py", HELP_JSON)  # executable, no shebang: probed and run with Python
    make_tool("whisper.py", ANNOTATED)
    report = discover_tools(tools_dir, config_dir, probes="unconfined")
    assert not report.errors, [str(error) for error in report.errors]
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_a_py_file_without_shebang_runs_with_python(without_shebang: Path) -> None:
    async with connect(without_shebang, "auto") as client:
        shouted = await client.call_tool("shout", {"word": "-hé"})
        whispered = await client.call_tool("whisper", {"word": "a b"})
    assert shouted.structured_content == {"shouted": "-HÉ"}, text_of(shouted)
    assert text_of(whispered).strip() == "['--word=a b']"
