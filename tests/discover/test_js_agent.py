"""discover.js_agent: an llm-functions agent's `tools.js`, whose exported, documented
functions are each a tool (read as text, never run)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import MakeTool
from toolkiln.discover import discover_tools

# The shape of llm-functions' agents/*/tools.js: `exports.NAME = (async) function`, each
# with its JSDoc (a typedef that several functions all call `Args`, `@property` lines with
# or without the ` - `, plain `@param` lines), an `_instructions` hook and a helper.
AGENT_TOOLS_JS = """\
const path = require("node:path");

exports._instructions = async function () {
  return "You keep notes.";
};

/**
 * Add a note to the list.
 * @typedef {Object} Args
 * @property {string} text The note's text
 * @property {'low'|'high'} [priority=low] - How urgent it is
 * @param {Args} args
 */
exports.add_note = async function (args) {
  return `added ${JSON.stringify(args)}`;
};

/**
 * Remove a note.
 *
 * @typedef {Object} Args
 * @property {integer} id - Which note
 * @param {Args} args
 */
exports.remove_note = function removeNote(args) {
  return { removed: args.id };
};

/**
 * List the notes.
 */
exports.list_notes = function listNotes() {
  console.log(path.sep === "/" ? "[]" : "[ ]");
};

/**
 * Find the notes with a word.
 * @param {string} word - The word to look for
 * @param {number} [limit=5] - How many to give back
 */
exports.find_notes = async function ({ word, limit = 5 }) {
  return { word, limit };
};

exports.undocumented = function (args) {
  return args;
};

function _notesFile() {
  return path.join("/tmp", "notes.json");
}
"""

ESM_AGENT_TOOLS = """\
/**
 * Say hello.
 * @typedef {Object} Args
 * @property {string} name - Whom to greet
 * @param {Args} args
 */
export async function greet(args) {
  return `hello ${args.name}`;
}

/**
 * Say goodbye.
 */
export function farewell() {
  return "bye";
}
"""


def configs(config_dir: Path) -> dict[str, dict[str, Any]]:
    return {
        path.stem: json.loads(path.read_text())["script_config"]
        for path in (config_dir / "tools").glob("*.json")
    }


def params(script_config: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (
            p["name"],
            p["type"],
            p.get("required", False),
            p.get("default"),
            p.get("enum"),
            p.get("description"),
        )
        for p in script_config["parameters"]
    ]


def test_each_documented_exported_function_of_an_agents_tools_js_is_a_tool(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("agents/notes/tools.js", AGENT_TOOLS_JS, executable=False)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, [str(error) for error in report.errors]
    found = configs(config_dir)
    assert sorted(found) == ["add_note", "find_notes", "list_notes", "remove_note"]
    assert {name: (c["dialect"], c["command"]) for name, c in found.items()} == {
        name: ("function", name) for name in found
    }
    assert found["add_note"]["description"] == "Add a note to the list."
    assert params(found["add_note"]) == [
        ("text", "string", True, None, None, "The note's text"),
        ("priority", "string", False, "low", ["low", "high"], "How urgent it is"),
    ]
    assert found["remove_note"]["description"] == "Remove a note."
    assert params(found["remove_note"]) == [("id", "integer", True, None, None, "Which note")]
    assert params(found["list_notes"]) == []
    assert params(found["find_notes"]) == [
        ("word", "string", True, None, None, "The word to look for"),
        ("limit", "number", False, 5, None, "How many to give back"),
    ]


def test_an_es_module_agent_and_a_tools_js_that_exports_run_is_one_tool(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("agents/hello/tools.mjs", ESM_AGENT_TOOLS, executable=False)
    make_tool("tools/tools.js", "/**\n * Do it.\n */\nexports.run = function () {\n  return 1;\n};\n")
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, [str(error) for error in report.errors]
    found = configs(config_dir)
    assert sorted(found) == ["farewell", "greet", "tools__tools"]
    assert params(found["greet"]) == [("name", "string", True, None, None, "Whom to greet")]
    assert found["tools__tools"].get("command") is None


def test_a_tools_js_without_documented_functions_is_not_a_tool_and_says_why(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "agents/bare/tools.js", "exports.ping = function () {\n  return 'pong';\n};\n", executable=False
    )
    make_tool("lib.js", "/**\n * Search.\n */\nasync function search(q) {}\nmodule.exports = { search };\n")
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors and report.tools == []
    kinds = {n.path: n.kind for n in report.not_tools}
    assert kinds["agents/bare/tools.js"] == "no-declaration"
