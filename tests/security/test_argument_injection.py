"""A value must stay a value: a legacy argparse script's list option cannot be made to
set another option (found beyond issue 16's list: `--tags a --output=/x` sets --output)."""

from __future__ import annotations

from pathlib import Path

import anyio

from tests.conftest import MakeTool
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.files import catalog_path
from toolkiln.runner import Registry, RunSettings, ToolRunner

SCRIPT = '''\
"""Tag things."""
import argparse

parser = argparse.ArgumentParser(description="Tag things")
parser.add_argument("--tags", nargs="+", required=True, help="The tags")
parser.add_argument("--output", default="", help="Where to write")
parser.add_argument("names", nargs="*", help="The names")


def main():
    args = parser.parse_args()
    if args.output:
        open(args.output, "w").write("injected")
    print(args.tags, args.names)


main()
'''


def test_a_list_value_cannot_pose_as_another_option(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("tagger.py", SCRIPT)
    discover_tools(tools_dir, config_dir)
    build_catalog(config_dir, tools_dir)
    runner = ToolRunner(Registry.load(catalog_path(config_dir)), RunSettings())
    target = tools_dir / "injected.txt"
    result = anyio.run(runner.call, "tagger", {"tags": ["a", f"--output={target}"]})
    assert result.is_error and "'tags'" in result.text and "option" in result.text
    assert not target.exists()
    fine = anyio.run(runner.call, "tagger", {"tags": ["a", "-1"], "names": ["--output=x"]})
    assert not fine.is_error, fine.text
    assert fine.text == "['a', '-1'] ['--output=x']"
    assert not (tools_dir / "x").exists()


def test_an_annotated_scripts_function_cannot_pose_as_an_option(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "act/run.sh",
        """\
        #!/bin/bash
        # Tool: act
        # Description: Run a function named by the caller
        # @param function: Which function (type: string, required: true)
        echo "first word: $1"
        """,
    )
    discover_tools(tools_dir, config_dir)
    build_catalog(config_dir, tools_dir)
    runner = ToolRunner(Registry.load(catalog_path(config_dir)), RunSettings())
    refused = anyio.run(runner.call, "act", {"function": "--help"})
    assert refused.is_error and "'function'" in refused.text and "option" in refused.text
    assert anyio.run(runner.call, "act", {"function": "hello"}).text == "first word: hello"


def test_a_link_that_leads_out_of_the_tools_folder_is_neither_read_nor_probed(
    tools_dir: Path, config_dir: Path
) -> None:
    (tools_dir / "id").symlink_to("/usr/bin/id")
    report = discover_tools(tools_dir, config_dir)
    assert report.tools == []
    assert any(warning.path == "id" and "outside" in warning.reason for warning in report.warnings)
