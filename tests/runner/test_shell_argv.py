"""Plain shell scripts called through `toolkiln call` (a real process) and an MCP client
over stdio (the SDK's): each argument reaches the script as its own parsing expects it
(getopts' `-o value`, `--name=value`, `--host value`, positionals in order after `--`
where the script understands it, the rest as words) and `stdin` on its standard input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MakeTool, child_env
from tests.discover.test_shell_script import CHECKOUT, DEPLOY, NOW, RESIZE, SHOUT
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

# The words exactly as the script got them, one per line between brackets.
ECHO_ARGS = """\
    #!/bin/sh
    # Show the words it is given.
    # Usage: words <first> [rest...]
    first="$1"
    shift
    printf '[%s]\\n' "$first" "$@"
"""


@pytest.fixture
def built(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    for name, body in (
        ("resize.sh", RESIZE), ("deploy", DEPLOY), ("bin/git-co", CHECKOUT), ("now.sh", NOW),
        ("shout", SHOUT), ("words", ECHO_ARGS),
    ):  # fmt: skip
        make_tool(name, body)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors and len(report.tools) == 6, report
    build_catalog(config_dir, tools_dir)
    return config_dir


def call(config_dir: Path, name: str, arguments: dict[str, object]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolkiln", "call", name, "--args", json.dumps(arguments),
         "--config-dir", str(config_dir), "--tools-dir", "unused"],
        env={**child_env(), "NO_COLOR": "1"}, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_getopts_options_and_positionals_through_toolkiln_call(built: Path) -> None:
    result = call(built, "resize", {"q": True, "o": "out dir", "image": "-cat.png"})
    assert result.returncode == 0, result.stderr
    # `-o` and its value as two words; `--` before `-cat.png`, which getopts then ends at.
    assert result.stdout.strip() == "quiet=1 out=out dir image=-cat.png width=800"
    result = call(built, "resize", {"image": "c.png", "width": "1024"})
    assert result.stdout.strip() == "quiet=0 out=. image=c.png width=1024"


def test_a_required_positional_left_out_is_refused_before_the_script_runs(built: Path) -> None:
    result = call(built, "resize", {"q": True})
    assert result.returncode != 0
    assert "image" in result.stdout + result.stderr


@pytest.mark.anyio
async def test_an_mcp_client_reaches_each_script_as_it_parses_its_arguments(built: Path) -> None:
    async with connect(built, "auto") as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        deploy = await client.call_tool(
            "deploy", {"edit": True, "name": "a b", "host": "-h1", "args": ["one", "two words"]}
        )
        checkout = await client.call_tool("bin__git-co", {"branch_name": "main"})
        now = await client.call_tool("now", {})
        shout = await client.call_tool("shout", {"stdin": "hello\nworld\n"})
        words = await client.call_tool("words", {"first": "a b", "rest": ["x", "-y"]})
        dashed = await client.call_tool("deploy", {"args": ["-n"]})
    assert listed["resize"].input_schema["required"] == ["image"]
    assert set(listed["shout"].input_schema["properties"]) == {"stdin"}
    assert not listed["now"].input_schema.get("properties")
    # `--name=a b` as one word, `--host` then `-h1`, the kept words in order.
    assert text_of(deploy).splitlines() == ["edit=1 name=a b host=-h1", "one", "two words"]
    assert text_of(checkout).strip() == "branch=main remote=origin"
    assert not now.is_error and text_of(now).strip().isdigit()
    assert text_of(shout).splitlines() == ["HELLO!", "WORLD!"]
    # A script that parses no options reads `$1` as it is, `-y` too; one whose loop would
    # take `-n` for its option (and has no `--` that reaches the kept words) is refused it.
    assert text_of(words).splitlines() == ["[a b]", "[x]", "[-y]"]
    assert dashed.is_error and "'-n' starts with '-'" in text_of(dashed)
