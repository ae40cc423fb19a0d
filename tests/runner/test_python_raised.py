"""A Python function tool that raises: what `toolkiln call` prints (a real process) and
what an MCP client gets over stdio (the SDK's client) say the exception once: its type,
its message and the line of the tool's own file; the traceback is the server's log's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MakeTool, child_env
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

DIVIDE = '''"""Divide, or read a number from JSON text.

@param a: The dividend (type: number, default: 1)
@param b: The divisor (type: number, default: 1)
@param text: JSON to read instead (type: string, default: "")
"""
import json


def divide(a, b):
    return a / b


def execute(params):
    if params["text"]:
        return {"read": json.loads(params["text"])}
    return {"q": divide(params["a"], params["b"])}
'''
BY_ZERO = "Tool 'divide' raised: ZeroDivisionError: division by zero (divide.py, line 11, in divide)"
BAD_JSON = (
    "Tool 'divide' raised: JSONDecodeError: Expecting value: line 1 column 1 (char 0) "
    "(divide.py, line 16, in execute)"
)


@pytest.fixture
def built(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("divide.py", DIVIDE, executable=False)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


def call(config_dir: Path, arguments: str, *options: str) -> subprocess.CompletedProcess[str]:
    folders = ["--config-dir", str(config_dir), "--tools-dir", "unused"]
    return subprocess.run(
        [sys.executable, "-m", "toolkiln", *options, "call", "divide", "--args", arguments, *folders],
        env={**child_env(), "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_call_says_the_exception_once_with_the_line_of_the_tool(built: Path) -> None:
    result = call(built, '{"b": 0}')
    assert result.returncode == 1
    everything = result.stdout + result.stderr
    assert BY_ZERO in everything
    assert everything.count("division by zero") == 1, everything
    assert "Traceback" not in everything


def test_call_with_verbose_shows_the_traceback_too(built: Path) -> None:
    result = call(built, '{"b": 0}', "-v")
    assert result.returncode == 1
    assert BY_ZERO in result.stdout + result.stderr
    assert "Traceback (most recent call last)" in result.stderr
    assert "return a / b" in result.stderr and 'python_worker.py", line' not in result.stderr


def test_an_exception_from_a_library_points_at_the_tools_line_that_called_it(built: Path) -> None:
    result = call(built, '{"text": "not json"}')
    assert result.returncode == 1
    assert BAD_JSON in result.stdout + result.stderr
    assert "json/decoder.py" not in result.stdout + result.stderr


@pytest.mark.anyio
async def test_an_mcp_client_gets_the_short_message_and_no_paths_of_the_server(built: Path) -> None:
    async with connect(built, "auto") as client:
        by_zero = await client.call_tool("divide", {"b": 0})
        bad_json = await client.call_tool("divide", {"text": "not json"})
        fine = await client.call_tool("divide", {"a": 6, "b": 3})
    assert by_zero.is_error and bad_json.is_error and not fine.is_error
    assert (text_of(by_zero), text_of(bad_json)) == (BY_ZERO, BAD_JSON)
    server_paths = (str(built.parent), str(Path(sys.executable).parent.parent), "Traceback")
    for result in (by_zero, bad_json):
        everything = result.model_dump_json()
        assert not [path for path in server_paths if path in everything], everything
