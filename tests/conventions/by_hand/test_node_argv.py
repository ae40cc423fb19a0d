"""Node scripts that read `process.argv` by hand, stdin, or nothing: read from their
text (never run), then called through the real MCP SDK client, each argument reaching
the script as it reads it (positional order, a value starting with `-` as given, stdin)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

GREET = """\
#!/usr/bin/env node
// Greet someone by name.
const name = process.argv[2];
const greeting = process.argv[3] || "Hello";
console.log(JSON.stringify([name, greeting, process.argv.length]));
"""
COPY = """\
// Copy files.
if (process.argv.length < 4) {
  console.error("Usage: copy.js <src> <dst>");
  process.exit(2);
}
const [, , src, dst] = process.argv;
console.log(JSON.stringify([src, dst]));
"""
TAG = """\
const [first, ...files] = process.argv.slice(2);
console.log(JSON.stringify([first, files]));
"""
PROSE = """\
const args = process.argv.slice(2);
if (args.length !== 2) { console.log("Usage: pdf.js [input pdf] [output directory]"); process.exit(1); }
console.log(JSON.stringify([args[0], args[1]]));
"""
UPPER = """\
#!/usr/bin/env node
// Upper-case the text on stdin.
let text = "";
process.stdin.on("data", (chunk) => (text += chunk));
process.stdin.on("end", () => process.stdout.write(text.toUpperCase()));
"""
UPTIME = """\
#!/usr/bin/env node
// Say hello to the world.
console.log("hello");
"""
FLAGS = """\
const verbose = process.argv.includes("-v");
console.log(verbose);
"""
LIBRARY = """\
module.exports = { add: (a, b) => a + b };
"""


@pytest.fixture
def built(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("greet.js", GREET)
    make_tool("copy.js", COPY, executable=False)
    make_tool("tag.mjs", TAG, executable=False)
    make_tool("pdf.js", PROSE, executable=False)
    make_tool("upper.js", UPPER)
    make_tool("hello.js", UPTIME)
    make_tool("flags.js", FLAGS, executable=False)
    make_tool("lib.js", LIBRARY, executable=False)
    report = discover_tools(tools_dir, config_dir, probes="none")
    assert not report.errors, report.errors
    assert sorted(tool.name for tool in report.tools) == ["copy", "greet", "hello", "pdf", "tag", "upper"]
    flags = next(n for n in report.not_tools if n.path == "flags.js")
    assert flags.kind == "argv-by-hand" and "line 1" in flags.reason
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.mark.anyio
async def test_an_mcp_client_reaches_each_node_script_as_it_reads_its_words(built: Path) -> None:
    async with connect(built, "auto") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        greet = await client.call_tool("greet", {"name": "-Ada", "greeting": "Hi"})
        greet_short = await client.call_tool("greet", {"name": "Ada"})
        copy = await client.call_tool("copy", {"dst": "b c", "src": "a"})
        tag = await client.call_tool("tag", {"first": "v1", "files": ["x", "--y"]})
        pdf = await client.call_tool("pdf", {"input_pdf": "in.pdf", "output_directory": "out"})
        upper = await client.call_tool("upper", {"stdin": "one\ntwo\n"})
        hello = await client.call_tool("hello", {})
    assert tools["greet"].description == "Greet someone by name."
    assert tools["greet"].input_schema["required"] == ["name"]
    assert tools["greet"].input_schema["properties"]["greeting"]["default"] == "Hello"
    assert json.loads(text_of(greet)) == ["-Ada", "Hi", 4]
    assert json.loads(text_of(greet_short))[:2] == ["Ada", "Hello"]  # the default, the script's own
    assert tools["copy"].input_schema["required"] == ["src", "dst"]
    assert json.loads(text_of(copy)) == ["a", "b c"]
    assert json.loads(text_of(tag)) == ["v1", ["x", "--y"]]
    assert sorted(tools["pdf"].input_schema["required"]) == ["input_pdf", "output_directory"]
    assert "guessed" in tools["pdf"].input_schema["properties"]["input_pdf"]["description"]
    assert json.loads(text_of(pdf)) == ["in.pdf", "out"]
    assert text_of(upper).rstrip("\n") == "ONE\nTWO"
    assert text_of(hello).strip() == "hello" and tools["hello"].input_schema.get("properties", {}) == {}
