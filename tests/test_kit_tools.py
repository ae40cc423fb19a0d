"""Kit tools end to end: the samples in tools/kit/ (bash, Python and node) and scripts run
by the interpreter for their extension, discovered, built and called for real through
`toolkiln call` and through the SDK's client over stdio."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.interpreters import node_command

REPO = Path(__file__).resolve().parent.parent
KIT_SAMPLES = REPO / "tools" / "kit"
RunCli = Callable[..., Result]

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

# A .py and a .js without a shebang line or the exec bit: run by python3 and node.
SHOUT_PY = """\
# Name: Shout
# Description: Upper-case a word
schema = {"input": {"word": {"type": "string", "required": True}}}
import json, os, sys
print(json.load(sys.stdin)["word"].upper(), os.environ["word"].upper())
"""

REPEAT_JS = """\
// Name: Repeat It
// Description: Repeat a word
schema = { input: { word: { type: 'string', required: true }, times: { type: 'integer', default: 2 } } }
const args = JSON.parse(require('fs').readFileSync(0, 'utf8'))
console.log(Array(args.times).fill(args.word).join(' '), process.env.times)
"""

# A TypeScript kit script; the test puts a stand-in `tsx` (node, for this type-free file) on the PATH.
TYPED_TS = """\
// Name: Typed
// Description: A TypeScript kit tool
const schema = { input: { n: { type: 'number', required: true } } }
console.log(String(JSON.parse(require('fs').readFileSync(0, 'utf8')).n * 2))
"""


@pytest.fixture
def kit_tools(tools_dir: Path, make_tool: MakeTool) -> Path:
    """The sample kit tools and the interpreter-run scripts, in a temporary tools folder."""
    shutil.copytree(KIT_SAMPLES, tools_dir / "kit")
    make_tool("by-interpreter/shout.py", SHOUT_PY, executable=False)
    make_tool("by-interpreter/repeat.js", REPEAT_JS, executable=False)
    return tools_dir


def discover_and_build(run_cli: RunCli) -> None:
    discovered = run_cli("discover", "--strict")
    assert discovered.exit_code == 0, discovered.output
    assert run_cli("build").exit_code == 0


# --- toolkiln call ----------------------------------------------------------------------------


@pytest.mark.usefixtures("kit_tools")
def test_discover_lists_the_kit_tools_under_their_names(run_cli: RunCli) -> None:
    discover_and_build(run_cli)
    listed = {tool["name"]: tool for tool in json.loads(run_cli("list", "--json").output)}
    assert {name: tool["dialect"] for name, tool in listed.items()} == {
        "create-note": "kit",
        "word-count": "kit",
        "slugify": "kit",
        "shout": "kit",
        "repeat-it": "kit",
    }
    assert listed["create-note"]["script_path"] == "kit/create-note.sh"


@pytest.mark.usefixtures("kit_tools")
def test_call_the_bash_sample(run_cli: RunCli) -> None:
    discover_and_build(run_cli)
    note = run_cli("call", "create-note", "title=Kiln log", "body=Fired at 1240 °C", "tag=pottery")
    assert (note.exit_code, note.output) == (0, "# Kiln log\n\nFired at 1240 °C\n\ntag: pottery\n")
    plain = run_cli("call", "create-note", "title=Plain", "format=text")
    assert (plain.exit_code, plain.output) == (0, "Plain\n=====\n")
    invalid = run_cli("call", "create-note", "format=html")
    assert invalid.exit_code == 1
    assert "'title' is required" in invalid.output
    assert 'format: "html" must be one of ["markdown", "text"]' in invalid.output


@pytest.mark.usefixtures("kit_tools")
def test_call_the_python_sample(run_cli: RunCli) -> None:
    discover_and_build(run_cli)
    counted = run_cli("call", "word-count", "text=The kiln, the KILN and the glaze.\nDone", "--json")
    assert counted.exit_code == 0, counted.output
    assert json.loads(counted.output)["structured"] == {
        "words": 8,
        "lines": 2,
        "characters": 38,
        "top_words": [["the", 3], ["kiln", 2], ["and", 1]],
    }
    case_sensitive = run_cli("call", "word-count", "text=The the", "ignore_case=false", "top=1")
    assert json.loads(case_sensitive.output)["top_words"] == [["The", 1]]


@needs_node
@pytest.mark.usefixtures("kit_tools")
def test_call_the_node_sample(run_cli: RunCli) -> None:
    discover_and_build(run_cli)
    slug = run_cli("call", "slugify", "text=Héllo, Wörld: the API!", 'keep=["API"]', "separator=_")
    assert (slug.exit_code, slug.output) == (0, '{"slug":"hello_world_the_API"}\n')
    short = run_cli("call", "slugify", "text=one two three", "max_length=5")
    assert json.loads(short.output) == {"slug": "one-t"}
    empty = run_cli("call", "slugify", "text=!!!")
    assert empty.exit_code == 1
    assert "exit code 2 (bad request)" in empty.output
    assert 'slugify: error: "!!!" has no letters or digits to make a slug of' in empty.output


@pytest.mark.usefixtures("kit_tools")
def test_a_script_without_a_shebang_runs_with_the_interpreter_for_its_extension(run_cli: RunCli) -> None:
    discover_and_build(run_cli)
    shout = run_cli("call", "shout", "word=kiln")
    assert (shout.exit_code, shout.output) == (0, "KILN KILN\n")


@needs_node
@pytest.mark.usefixtures("kit_tools")
def test_a_js_script_without_a_shebang_runs_with_node(run_cli: RunCli) -> None:
    discover_and_build(run_cli)
    repeat = run_cli("call", "repeat-it", "word=clay", "times=3")
    assert (repeat.exit_code, repeat.output) == (0, "clay clay clay 3\n")


@needs_node
def test_typescript_runs_with_a_runner_from_the_path(
    run_cli: RunCli, make_tool: MakeTool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "tsx").write_text('#!/bin/sh\necho "INFO run by tsx" >&2\nexec node "$@"\n')
    (bin_dir / "tsx").chmod(0o755)
    make_tool("typed.ts", TYPED_TS, executable=False)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    discover_and_build(run_cli)
    doubled = run_cli("call", "typed", "n=21")
    assert (doubled.exit_code, doubled.output.splitlines()[-1]) == (0, "42")

    # The runner is gone at call time: the error says what to install.
    monkeypatch.setenv("PATH", os.environ["PATH"].split(os.pathsep, 1)[1])
    missing = run_cli("call", "typed", "n=21")
    assert missing.exit_code == 1
    assert "Tool 'typed' could not start: cannot start tsx" in missing.output
    assert "Install tsx (it must be on the PATH), or give the script a shebang line" in missing.output


def test_typescript_without_a_runner_is_a_discovery_error_that_spares_the_others(
    run_cli: RunCli, make_tool: MakeTool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runners = any(shutil.which(runner) for runner in ("tsx", "ts-node", "bun", "deno"))
    if runners or node_command(typescript=True):
        bin_dir = tmp_path / "bin"  # hide the real runners: only bash and python3 are needed
        bin_dir.mkdir()
        for program in ("bash", "python3"):
            (bin_dir / program).symlink_to(shutil.which(program) or program)
        monkeypatch.setenv("PATH", str(bin_dir))
    make_tool("typed.ts", TYPED_TS, executable=False)
    make_tool("shout.py", SHOUT_PY, executable=False)
    discovered = run_cli("discover")
    assert discovered.exit_code == 0
    assert "error: typed.ts: cannot be run: it has no shebang line" in discovered.output
    assert "(tsx, ts-node, bun, deno or node 22.6 or later) is installed on the PATH" in discovered.output
    assert "1 created" in discovered.output and "1 error" in discovered.output
    assert run_cli("build").exit_code == 0
    assert run_cli("call", "shout", "word=ok").output == "OK OK\n"


# --- the SDK's client over stdio --------------------------------------------------------------


@pytest.fixture
def served(kit_tools: Path, run_cli: RunCli, config_dir: Path) -> Path:
    discover_and_build(run_cli)
    return config_dir


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_kit_tools_over_stdio(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        note = await client.call_tool("create-note", {"title": "Over stdio", "body": "Hi"})
        counted = await client.call_tool("word-count", {"text": "a b a", "top": 1})
        shout = await client.call_tool("shout", {"word": "mcp"})
        invalid = await client.call_tool("word-count", {"text": "", "top": 21})
    assert sorted(tools) == ["create-note", "repeat-it", "shout", "slugify", "word-count"]
    assert tools["create-note"].title == "Create Note"
    schema = tools["create-note"].input_schema
    assert (schema["required"], schema["additionalProperties"]) == (["title"], False)
    assert schema["properties"]["format"]["enum"] == ["markdown", "text"]
    assert schema["properties"]["title"] == {
        "type": "string",
        "description": "The note's title",
        "minLength": 1,
        "maxLength": 100,
    }
    assert tools["slugify"].input_schema["properties"]["keep"]["items"] == {"type": "string"}
    assert (note.is_error, text_of(note)) == (False, "# Over stdio\n\nHi")
    assert counted.structured_content == {
        "words": 3,
        "lines": 1,
        "characters": 5,
        "top_words": [["a", 2]],
    }
    assert text_of(shout) == "MCP MCP"
    assert invalid.is_error
    assert "top: 21 must be at most 20" in text_of(invalid)
    assert 'text: "" must be at least 1 character long' in text_of(invalid)


@needs_node
@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_node_kit_tools_over_stdio(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        slug = await client.call_tool("slugify", {"text": "Kit over MCP", "separator": "."})
        repeat = await client.call_tool("repeat-it", {"word": "hi"})
        failed = await client.call_tool("slugify", {"text": "???"})
    assert slug.structured_content == {"slug": "kit.over.mcp"}
    assert text_of(repeat) == "hi hi 2"
    assert failed.is_error
    assert failed.meta is not None and failed.meta["toolkiln/exitCode"] == 2
