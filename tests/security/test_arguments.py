"""Hole 11 of issue 16, and its class: text no script could be given (a NUL character, a
lone surrogate) in any argument. Each is a refusal that names the argument, never
"failed inside toolkiln", wherever the value sits and whatever it would become (a path,
argv, an env var, stdin JSON, run_command's command line, a prompt's text)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import mcp.types as types
import pytest
from click.testing import Result
from mcp.shared.exceptions import MCPError

from tests.conftest import MakeTool, child_env
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.files import catalog_path
from toolkiln.runner import Registry, RunSettings, ToolRunner

READ = """\
#!/bin/bash
# Tool: read
# Description: Shows what it was given
# @param file: A file in the workspace (type: path)
# @param note: A note (type: string)
# @param tags: Labels (type: array, items: string)
# @param opts: Options (type: object)
echo "file=$file note=$note tags=$tags opts=$opts"
"""

WORKER = '''\
"""Echoes its note.

@param note: A note (type: string, required: true)
"""


def execute(params):
    return {"note": params["note"]}
'''

GREET = "---\ndescription: Greets\n@param who: Whom (required: true)\n---\nHello {{ who }}\n"


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path) -> Path:
    make_tool("read.sh", READ)
    make_tool("worker.py", WORKER, executable=False)
    prompts, resources = tmp_path / "prompts", tmp_path / "resources"
    prompts.mkdir()
    resources.mkdir()
    (prompts / "greet.md").write_text(GREET)
    (resources / "log-{day}.txt").write_text("log of {{ day }}\n")
    config_dir.mkdir()
    run_command = {"enabled": True, "allow": ["echo"], "roots": [str(tmp_path)]}
    (config_dir / "server.json").write_text(json.dumps({"run_command": run_command}))
    assert not discover_tools(tools_dir, config_dir, prompts_dir=prompts, resources_dir=resources).errors
    build_catalog(config_dir, tools_dir, prompts, resources)
    return config_dir


NUL = (
    "contains a NUL character (\\u0000), which no file name, command-line argument "
    "or environment variable can hold"
)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize(
    ("tool", "arguments", "where"),
    [
        ("read", {"file": "a\0b"}, "file"),  # a path: was "failed inside toolkiln"
        ("read", {"note": "a\0b"}, "note"),  # argv and env: the message did not name it
        ("read", {"tags": ["ok", "a\0b"]}, "tags[1]"),
        ("read", {"opts": {"k": "a\0b"}}, "opts.k"),
        ("worker", {"note": "a\0b"}, "note"),  # stdin JSON only, refused all the same
        ("run_command", {"command": "echo a\0b"}, "command"),
        ("run_command", {"command": "echo", "workdir": "a\0b"}, "workdir"),
    ],
)
async def test_a_nul_character_is_a_refusal_naming_the_argument(
    served: Path, mode: str, tool: str, arguments: dict[str, object], where: str
) -> None:
    async with connect(served, mode) as client:
        refused = await client.call_tool(tool, arguments)
        fine = await client.call_tool("read", {"note": "still here"})
    assert refused.is_error
    assert text_of(refused) == f"Invalid arguments for tool {tool!r}:\n- {where}: {NUL}"
    assert "still here" in text_of(fine)


@pytest.mark.anyio
async def test_a_nul_character_in_an_object_key_is_refused(served: Path) -> None:
    async with connect(served, "legacy") as client:
        refused = await client.call_tool("read", {"opts": {"a\0b": 1}})
    assert refused.is_error
    assert f"- opts: the key 'a\\x00b' {NUL}" in text_of(refused)


@pytest.mark.anyio
async def test_a_nul_character_in_a_prompt_argument_is_invalid_params(served: Path) -> None:
    async with connect(served, "legacy") as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("greet", {"who": "a\0b"})
    assert caught.value.error.code == types.INVALID_PARAMS
    assert f"who: {NUL}" in caught.value.error.message


@pytest.mark.anyio
async def test_a_nul_character_in_a_resource_uri_only_reaches_the_template(served: Path) -> None:
    """A URI's values are rendered into the file's text and never name a file or reach a
    process; JSON carries the NUL escaped."""
    async with connect(served, "legacy") as client:
        result = await client.read_resource("toolkiln://resources/log-a\0b.txt")
        listed = await client.list_tools()
    [contents] = result.contents
    assert isinstance(contents, types.TextResourceContents) and contents.text == "log of a\0b\n"
    assert listed.tools


LONE_SURROGATE = "contains a lone surrogate (\\ud800-\\udfff), which is not text (it has no UTF-8 form)"


def test_a_lone_surrogate_over_stdio_is_a_parse_error_and_the_server_goes_on(served: Path) -> None:
    """The SDK's parser (and /rpc's) refuses a lone surrogate in the JSON text itself."""
    lines = [
        '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"note":"a\\ud800b"}}}',
        '{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"greet","arguments":{"who":"\\udfff"}}}',
        '{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"toolkiln://resources/log-\\ud800.txt"}}',
        '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read","arguments":{"note":"fine"}}}',
    ]
    with subprocess.Popen(
        [sys.executable, "-m", "toolkiln", "serve", "--config-dir", str(served), "--no-audit"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(),
    ) as server:
        assert server.stdin is not None and server.stdout is not None and server.stderr is not None
        server.stdin.write("\n".join(lines).encode() + b"\n")
        server.stdin.flush()
        answers = []
        while not any(answer["id"] == 4 for answer in answers):  # EOF on stdin would end the calls
            answers.append(json.loads(server.stdout.readline()))
        server.stdin.close()
        log = server.stderr.read()
        assert server.wait(timeout=30) == 0
    refused = [answer for answer in answers if answer["id"] is None]
    assert [answer["error"]["code"] for answer in refused] == [-32700] * 3
    [fine] = [answer for answer in answers if answer["id"] == 4]
    assert "note=fine" in fine["result"]["content"][0]["text"]
    assert b"Traceback" not in log


def test_a_lone_surrogate_through_toolkiln_call_is_a_refusal(
    served: Path, run_cli: Callable[..., Result]
) -> None:
    """Python's json (toolkiln call --args, the dashboard's form) reads `\\ud800` as a lone
    surrogate; it was a UnicodeEncodeError and a traceback."""
    for arguments, where in (('{"note": "a\\ud800b"}', "note"), ('{"file": "\\udfff"}', "file")):
        result = run_cli("call", "read", "--args", arguments)
        assert result.exit_code == 1
        assert f"- {where}: {LONE_SURROGATE}" in result.output


@pytest.mark.anyio
async def test_the_runner_refuses_what_any_caller_hands_it(served: Path) -> None:
    """Every call (MCP, /rpc, the dashboard, toolkiln call) comes through the runner."""
    runner = ToolRunner(Registry.load(catalog_path(served)), RunSettings())
    result = await runner.call("read", {"opts": {"\ud800": ["\0"]}, "tags": ["x\udc80"]})
    assert result.is_error
    assert result.text.splitlines()[1:] == sorted(
        [
            f"- opts: the key '\\ud800' {LONE_SURROGATE}",
            f"- opts.\ud800[0]: {NUL}",
            f"- tags[0]: {LONE_SURROGATE}",
        ]
    )
