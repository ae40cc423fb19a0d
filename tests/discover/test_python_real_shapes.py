"""Shapes of Python scripts found in real public folders (script collections, project
`scripts/` folders, Windmill workspaces) that discovery must read right: served with
the parameters their convention gives, or not served with a reason that fits."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeTool
from toolkiln.discover import discover_tools
from toolkiln.files import load_tool_config, tool_config_path
from toolkiln.model import Parameter

# Windmill passes a resource as a dict, typed by a TypedDict class named after its type.
WINDMILL_RESOURCE = '''
from typing import TypedDict


class mysql(TypedDict):
    host: str
    port: int
    password: str


def main(sql: str, conn: mysql, dry_run: bool = False, owner: str = None) -> dict:
    """Run one statement against the shop's database."""
    return {"sql": sql, "host": conn["host"], "dry_run": dry_run, "owner": owner}
'''

# A main that takes the command line as a list, called with sys.argv by the script itself.
ARGV_MAIN = '''#!/usr/bin/env python3
"""Print the words given, reversed."""
import sys


def main(words):
    if not words:
        raise SystemExit("usage: reverse.py WORD...")
    print(" ".join(reversed(words)))


if __name__ == "__main__":
    main(sys.argv[1:])
'''

ARGV_BY_HAND = """import sys

source = sys.argv[1]
print(open(source).read().upper())
"""

GETOPT_MAIN = """import getopt
import sys


def main():
    opts, rest = getopt.getopt(sys.argv[1:], "vn:", ["verbose", "count="])
    print(opts, rest)


main()
"""

OPTPARSE_AT_MODULE_LEVEL = '''"""Compare two files."""
import sys, difflib, optparse

parser = optparse.OptionParser("usage: %prog [options] old new")
parser.add_option("-u", action="store_true", default=False, help="Unified")
options, args = parser.parse_args()
old, new = args
sys.stdout.writelines(difflib.unified_diff(open(old).readlines(), open(new).readlines()))
'''

ASKS_INTERACTIVELY = """def main():
    path = input("Which file? ")
    print(len(open(path).read()))


if __name__ == "__main__":
    main()
"""

ARGPARSE_DEST_ONLY = '''"""List a folder's files."""
import argparse

parser = argparse.ArgumentParser(description="List a folder, deepest first.")
parser.add_argument(dest="root", help="The folder to list")
parser.add_argument("-d", "--depth", dest="depth", type=int, help="How deep to go")
args = parser.parse_args()
print(args.root, args.depth)
'''

ARGPARSE_IMPORTED_NAMES = """from argparse import ArgumentParser, BooleanOptionalAction


def main():
    text = "Turn text into base64 and back"
    parser = ArgumentParser(prog="b64", description=text)
    parser.add_argument("-d", "--decode", action=BooleanOptionalAction, default=False, help="Decode")
    parser.add_argument("text")
    args = parser.parse_args()
    print(args.decode, args.text)


if __name__ == "__main__":
    main()
"""

TYPER_DEFAULT_FACTORY = '''from typing import Annotated

import typer

app = typer.Typer()


@app.command()
def main(
    label: Annotated[str, typer.Option(help="A label")],
    tag: Annotated[list[str], typer.Option(help="Tags", default_factory=list)],
) -> None:
    """Label a thing."""
    print(label, tag)


if __name__ == "__main__":
    app()
'''


def _parameters(config_dir: Path, name: str) -> dict[str, Parameter]:
    script = load_tool_config(tool_config_path(config_dir, name)).script_config
    return {p.name: p for p in script.parameters}


def test_a_windmill_resource_typed_by_a_typeddict_is_an_object(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("shop_query.py", WINDMILL_RESOURCE, executable=False)
    report = discover_tools(tools_dir, config_dir, probes="none")
    assert not report.errors, report.errors
    params = _parameters(config_dir, "shop_query")
    assert (params["conn"].type, params["conn"].required) == ("object", True)
    assert (params["sql"].required, params["dry_run"].required, params["owner"].required) == (
        True,
        False,
        False,
    )


def test_a_main_given_sys_argv_is_not_a_keyword_tool(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("reverse.py", ARGV_MAIN, executable=False)
    report = discover_tools(tools_dir, config_dir, probes="none")
    assert [tool.name for tool in report.tools] == []
    (verdict,) = report.not_tools
    assert verdict.kind == "argv-by-hand" and "sys.argv" in verdict.reason


def test_scripts_that_read_their_command_line_by_hand_say_so_unless_every_word_is_named(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("upper.py", ARGV_BY_HAND, executable=False)
    make_tool("opts.py", GETOPT_MAIN, executable=False)
    make_tool("ask.py", ASKS_INTERACTIVELY, executable=False)
    make_tool("compare.py", OPTPARSE_AT_MODULE_LEVEL, executable=False)
    report = discover_tools(tools_dir, config_dir, probes="none")
    assert [tool.name for tool in report.tools] == ["upper"]  # `source = sys.argv[1]`: named
    assert list(_parameters(config_dir, "upper")) == ["source"]
    verdicts = {v.path: v for v in report.not_tools}
    assert {path: v.kind for path, v in verdicts.items()} == {
        "opts.py": "argv-by-hand",
        "ask.py": "asks-input",
        "compare.py": "argv-by-hand",
    }
    assert "fallback" in verdicts["opts.py"].reason and "getopt" in verdicts["opts.py"].reason
    assert "input()" in verdicts["ask.py"].reason and "optparse" in verdicts["compare.py"].reason


def test_a_script_reading_argv_by_hand_can_still_be_opted_in_to_the_fallback(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("upper.py", ARGV_BY_HAND, executable=False)
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "server.json").write_text(json.dumps({"discovery": {"fallback": ["upper.py"]}}))
    report = discover_tools(tools_dir, config_dir)  # the fallback asks `--help`, confined
    assert [tool.name for tool in report.tools] == ["upper"]
    assert load_tool_config(tool_config_path(config_dir, "upper")).script_config.dialect == "fallback"


def test_an_argparse_positional_named_by_dest_alone(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("tree.py", ARGPARSE_DEST_ONLY, executable=False)
    report = discover_tools(tools_dir, config_dir, probes="none")
    assert not report.errors, report.errors
    params = _parameters(config_dir, "tree")
    assert (params["root"].required, params["root"].option) == (True, "")
    assert (params["depth"].type, params["depth"].option) == ("integer", "--depth")


def test_argparse_names_imported_from_argparse_and_a_local_description(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("b64.py", ARGPARSE_IMPORTED_NAMES, executable=False)
    report = discover_tools(tools_dir, config_dir, probes="none")
    assert not report.errors and not report.warnings, (report.errors, report.warnings)
    script = load_tool_config(tool_config_path(config_dir, "b64")).script_config
    assert script.description == "Turn text into base64 and back"
    params = {p.name: p for p in script.parameters}
    assert (params["decode"].type, params["decode"].option) == ("boolean", "--decode/--no-decode")


def test_a_typer_option_with_a_default_factory_is_optional(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("label.py", TYPER_DEFAULT_FACTORY, executable=False)
    report = discover_tools(tools_dir, config_dir, probes="none")
    assert not report.errors, report.errors
    params = _parameters(config_dir, "label")
    assert (params["label"].required, params["tag"].required, params["tag"].type) == (True, False, "array")
