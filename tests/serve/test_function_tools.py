"""Function-style tools (llm-functions' Python `def run` and JavaScript `exports.run`) and
a Script Kit `defineSchema` script, through `toolkiln serve` and the SDK's real client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio

PYTHON_TOOL = '''
import asyncio
from typing import List, Literal, Optional

def run(
    text: str,
    mode: Literal["upper", "lower", "same"],
    times: int = 2,
    ratio: float = 0.5,
    loud: bool = False,
    tags: List[str] = [],
    note: Optional[str] = None,
    label: Optional[str] = "none",
    shape: str = "dict",
):
    """Echo what arrived, with its Python type.
    Args:
        text: The text
        mode: How to change it
        shape: dict, str, none, list, print or raise
    """
    if shape == "raise":
        raise ValueError(f"refused: {text}")
    seen = {
        "text": text, "mode": mode, "times": times, "ratio": ratio, "loud": loud, "tags": tags,
        "note": note, "label": label,
        "types": [type(v).__name__ for v in (text, times, ratio, loud, tags, note)],
    }
    if shape == "str":
        return f"{text} x{times}"
    if shape == "none":
        return None
    if shape == "list":
        return [text, times]
    if shape == "print":
        print("printed:", text)
        return "returned"
    return seen
'''

ASYNC_PYTHON_TOOL = '''
import asyncio

async def run(name: str) -> str:
    """Greet, after a pause."""
    await asyncio.sleep(0)
    return f"hello {name}"
'''

JS_TOOL = """
/**
 * Echo the arguments back as JSON.
 * @typedef {Object} Args
 * @property {string} text - The text
 * @property {'a'|'b'} choice - One of two
 * @property {string[]} tags - Labels
 * @property {number} [count=3] - A number
 * @property {boolean} [fail] - Throw instead
 * @param {Args} args
 */
exports.run = async function run(args) {
  await new Promise((resolve) => setTimeout(resolve, 1));
  if (args.fail) {
    throw new Error(`cannot echo ${args.text}`);
  }
  return { got: args, tagCount: args.tags.length, kinds: Object.values(args).map((v) => typeof v) };
};
"""

JS_PRINTING_TOOL = """
/**
 * Say hello, the llm-functions way: print, return nothing.
 * @param {Object} args
 * @param {string} args.name - Who
 */
function run({ name }) {
  console.log(`hello ${name}`);
  setInterval(() => {}, 1000);  // a handle left open must not hang the call
}

module.exports = { run };
"""

KIT_TOOL = """
// Name: Shout
// Description: Repeat a word loudly
const { input } = defineSchema({
  input: {
    word: { type: "string", required: true, description: "The word" },
    times: { type: "integer", default: 2 },
  },
  output: { text: { type: "string" } },
} as const)

let data = "";
process.stdin.on("data", (chunk) => (data += chunk));
process.stdin.on("end", () => {
  const { word, times } = JSON.parse(data);
  const text = Array(times).fill(word.toUpperCase()).join(" ");
  console.log(JSON.stringify({ text, env: process.env.word }));
});

function defineSchema(schema) {  // Script Kit's global, for this test outside Script Kit
  return schema;
}
"""


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("echo_py.py", PYTHON_TOOL, executable=False)
    make_tool("greet_async.py", ASYNC_PYTHON_TOOL, executable=False)
    make_tool("echo_js.js", JS_TOOL, executable=False)
    make_tool("hello_js.js", JS_PRINTING_TOOL, executable=False)
    make_tool("shout.js", KIT_TOOL.replace(" as const", ""), executable=False)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, [str(error) for error in report.errors]
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_python_run_gets_typed_keywords_defaults_and_none_for_left_out_optionals(served: Path) -> None:
    awkward = "-x --flag 'quoted' \"double\" ünï $HOME; rm -rf /"
    async with connect(served, "auto") as client:
        full = await client.call_tool(
            "echo_py",
            {"text": awkward, "mode": "upper", "times": 5, "ratio": 2.5, "loud": True, "tags": ["-a", "b c"]},
        )
        bare = await client.call_tool("echo_py", {"text": "x", "mode": "same"})
        bad = await client.call_tool("echo_py", {"text": "x", "mode": "sideways"})
        missing = await client.call_tool("echo_py", {"mode": "same"})
    assert not full.is_error and full.structured_content is not None
    assert full.structured_content == {
        "text": awkward, "mode": "upper", "times": 5, "ratio": 2.5, "loud": True, "tags": ["-a", "b c"],
        "note": None, "label": "none", "types": ["str", "int", "float", "bool", "list", "NoneType"],
    }  # fmt: skip
    assert json.loads(text_of(full)) == full.structured_content
    assert bare.structured_content is not None
    assert (bare.structured_content["times"], bare.structured_content["ratio"]) == (2, 0.5)
    assert (bare.structured_content["tags"], bare.structured_content["note"]) == ([], None)
    assert bare.structured_content["label"] == "none"  # Python's own default applies
    assert bad.is_error and "mode" in text_of(bad)
    assert missing.is_error and "text" in text_of(missing)


async def test_python_run_results_str_none_list_printed_async_and_raised(served: Path) -> None:
    async with connect(served, "auto") as client:
        as_str = await client.call_tool("echo_py", {"text": "hi", "mode": "same", "shape": "str"})
        as_none = await client.call_tool("echo_py", {"text": "hi", "mode": "same", "shape": "none"})
        as_list = await client.call_tool("echo_py", {"text": "hi", "mode": "same", "shape": "list"})
        printed = await client.call_tool("echo_py", {"text": "hi", "mode": "same", "shape": "print"})
        raised = await client.call_tool("echo_py", {"text": "hi", "mode": "same", "shape": "raise"})
        greeted = await client.call_tool("greet_async", {"name": "Ada"})
    assert (text_of(as_str), as_str.structured_content, as_str.is_error) == ("hi x2", None, False)
    assert (text_of(as_none), as_none.is_error) == ("", False)
    assert json.loads(text_of(as_list)) == ["hi", 2] and as_list.structured_content is None
    assert text_of(printed) == "printed: hi\nreturned"
    assert raised.is_error
    assert text_of(raised) == "Tool 'echo_py' raised: ValueError: refused: hi (echo_py.py, line 22, in run)"
    assert text_of(greeted) == "hello Ada"


async def test_javascript_run_gets_the_arguments_object_and_its_result_is_the_output(served: Path) -> None:
    awkward = "--flag 'q' \"d\" ünï `whoami` $(id)"
    async with connect(served, "auto") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        echoed = await client.call_tool("echo_js", {"text": awkward, "choice": "b", "tags": ["-x", "y z"]})
        thrown = await client.call_tool("echo_js", {"text": "boom", "choice": "a", "tags": [], "fail": True})
        wrong = await client.call_tool("echo_js", {"text": "t", "choice": "c", "tags": []})
        hello = await client.call_tool("hello_js", {"name": "Grace"})
    schema = tools["echo_js"].input_schema
    assert schema["required"] == ["text", "choice", "tags"]
    assert schema["properties"]["choice"]["enum"] == ["a", "b"]
    assert schema["properties"]["tags"] == {
        "type": "array",
        "items": {"type": "string"},
        "description": "Labels",
    }
    assert not echoed.is_error, text_of(echoed)
    assert echoed.structured_content == {
        "got": {"text": awkward, "choice": "b", "tags": ["-x", "y z"], "count": 3},
        "tagCount": 2,
        "kinds": ["string", "string", "object", "number"],
    }
    assert thrown.is_error and "cannot echo boom" in text_of(thrown)
    assert wrong.is_error and "choice" in text_of(wrong)
    assert (text_of(hello), hello.is_error) == ("hello Grace", False)


async def test_a_define_schema_kit_script_gets_stdin_json(served: Path) -> None:
    async with connect(served, "auto") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("shout", {"word": "hey -n"})
    assert tools["shout"].description == "Repeat a word loudly"
    assert tools["shout"].input_schema["required"] == ["word"]
    assert result.structured_content == {"text": "HEY -N HEY -N", "env": "hey -n"}


AGENT_TOOLS = '''
import os
from typing import Literal

STORE = {}


def add_todo(desc: str, priority: Literal["low", "high"] = "low") -> str:
    """Add a todo.

    Args:
        desc: What to do
        priority: How urgent it is
    """
    return f"added {desc!r} ({priority}) in {os.getpid()}"


async def list_todos(limit: int = 10) -> list:
    """List the todos."""
    return [f"todo {n}" for n in range(min(limit, 2))]


def _helper():
    return "never a tool"


def undocumented(x):
    return x
'''


@pytest.fixture
def agent(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("agents/todo/tools.py", AGENT_TOOLS, executable=False)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors
    assert sorted(tool.name for tool in report.tools) == ["add_todo", "list_todos"]
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_an_agents_tools_py_serves_each_documented_function(agent: Path) -> None:
    async with connect(agent, "auto") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        added = await client.call_tool("add_todo", {"desc": "-rf $(id)", "priority": "high"})
        listed = await client.call_tool("list_todos", {"limit": 1})
        wrong = await client.call_tool("add_todo", {"desc": "x", "priority": "urgent"})
    assert tools["add_todo"].input_schema["required"] == ["desc"]
    assert tools["add_todo"].description == "Add a todo."
    assert text_of(added).startswith("added '-rf $(id)' (high) in ")
    assert json.loads(text_of(listed)) == ["todo 0"]
    assert wrong.is_error


@pytest.fixture
def windmill_and_script(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    from tests.discover.test_python_script import NO_ARGUMENTS, WINDMILL

    make_tool("issues.py", WINDMILL, executable=False)
    make_tool("today.py", NO_ARGUMENTS)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_a_keyword_main_and_a_script_without_arguments_run(windmill_and_script: Path) -> None:
    async with connect(windmill_and_script, "auto") as client:
        listed = await client.call_tool("issues", {"repo": "-x/'y'", "state": "closed"})
        today = await client.call_tool("today", {})
    assert json.loads(text_of(listed)) == ["-x/'y'", 10, "closed"]
    assert not today.is_error and ", week " in text_of(today)


@pytest.fixture
def inline_dependencies(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    from tests.discover.test_python_script import INLINE_DEPENDENCIES

    make_tool("which.py", INLINE_DEPENDENCIES)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_a_script_with_inline_dependencies_runs_with_uv(inline_dependencies: Path) -> None:
    async with connect(inline_dependencies, "auto") as client:
        result = await client.call_tool("which", {"word": "-x y"})
    assert text_of(result).strip() == "-x y uv True"  # in uv's environment for the script
