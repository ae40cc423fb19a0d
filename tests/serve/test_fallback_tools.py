"""Fallback tools through `toolkiln serve` and the SDK's real client: `args` is the
program's command line, word for word, and nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio

# Prints what it got: its argv after the program, what stdin held, and its exit status
# from `--exit N` (so that a failing program is a tool error).
ECHO_ARGV = """\
    #!/usr/bin/env python3
    import json, sys
    if sys.argv[1:] == ["--help"]:
        print("usage: echo-argv [--exit N] [WORD...]\\n\\nPrints its arguments as JSON.")
        sys.exit(0)
    stdin = sys.stdin.read() if not sys.stdin.isatty() else ""
    print(json.dumps({"argv": sys.argv[1:], "stdin": stdin}))
    if sys.argv[1:2] == ["--exit"]:
        sys.exit(int(sys.argv[2]))
"""
HOSTILE = [
    "--exit=0",
    "-rf",
    "a b  c",
    'it\'s "quoted"',
    "$(id)",
    "`id`",
    "; rm -rf / #",
    "*",
    "~",
    "",
    "ünïcødé ✓",
    "line\nbreak",
]


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("bin/echo-argv", ECHO_ARGV)
    make_tool("bin/not-opted.sh", "#!/bin/sh\necho 'usage: not-opted'\n")
    config_dir.mkdir()
    (config_dir / "server.json").write_text(json.dumps({"discovery": {"fallback": ["bin/echo-argv"]}}))
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_args_reach_the_program_exactly_and_stdin_is_closed(served: Path) -> None:
    async with connect(served, "auto") as client:
        tools = (await client.list_tools()).tools
        hostile = await client.call_tool("bin__echo-argv", {"args": HOSTILE})
        none = await client.call_tool("bin__echo-argv", {})
        failing = await client.call_tool("bin__echo-argv", {"args": ["--exit", "3"]})
        wrong = await client.call_tool("bin__echo-argv", {"args": "--exit 3"})
        numbers = await client.call_tool("bin__echo-argv", {"args": [1, 2]})
    assert [tool.name for tool in tools] == ["bin__echo-argv"]  # the file not opted in is not served
    [tool] = tools
    assert tool.description is not None and tool.description.startswith("usage: echo-argv [--exit N]")
    assert tool.input_schema["properties"]["args"]["type"] == "array"
    assert json.loads(text_of(hostile)) == {"argv": HOSTILE, "stdin": ""}
    assert json.loads(text_of(none)) == {"argv": [], "stdin": ""}
    assert failing.is_error and '"argv": ["--exit", "3"]' in text_of(failing)
    assert wrong.is_error and numbers.is_error  # an array of strings, nothing else
    assert "args" in text_of(wrong)
