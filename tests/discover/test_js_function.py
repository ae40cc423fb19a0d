"""discover.js_function (and discover.jsdoc): JavaScript tools that export `run`,
described by JSDoc, read as text, never run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import MakeTool
from toolkiln.conventions.base import Candidate, NotATool, Probe
from toolkiln.conventions.javascript import function as js_function
from toolkiln.conventions.javascript.argv import function_argv
from toolkiln.conventions.javascript.jsdoc import JsType, read_type
from toolkiln.discover import discover_tools
from toolkiln.errors import ProcessStartError


def discovered(tools_dir: Path, config_dir: Path, name: str) -> dict[str, Any]:
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, [str(error) for error in report.errors]
    script: dict[str, Any] = json.loads((config_dir / "tools" / f"{name}.json").read_text())["script_config"]
    return script


def by_name(script: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {param["name"]: param for param in script["parameters"]}


def test_typedef_and_properties_in_one_block(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool(
        "translate.js",
        """
        /**
         * Translate a text into another language.
         * @typedef {Object} Args
         * @property {string} text - The text to translate
         * @property {'en'|'fr'|"ja"} target - The language to translate into
         * @property {string} [source] - The language of the text, guessed when left out
         * @property {number} [temperature=0.2] - How free the translation may be
         * @property {integer} [attempts=2]
         * @property {boolean} [formal] - Use the formal register
         * @property {string[]} glossary - Terms to keep
         *   as they are
         * @property {Array<number>} [weights]
         * @property {Object} [options] - Extra options
         * @property {boolean} [options.cache] - part of options, not an argument
         * @param {Args} args
         */
        exports.run = function run({ text, target }) {
          throw new Error("discovery must never run me");
        };
        """,
        executable=False,
    )
    script = discovered(tools_dir, config_dir, "translate")
    assert script["dialect"] == "function"
    assert script["description"] == "Translate a text into another language."
    params = by_name(script)
    assert list(params) == [
        "text", "target", "source", "temperature", "attempts", "formal", "glossary", "weights", "options",
    ]  # fmt: skip
    assert params["text"] == {
        "name": "text",
        "type": "string",
        "required": True,
        "description": "The text to translate",
    }
    assert (params["target"]["enum"], params["target"]["required"]) == (["en", "fr", "ja"], True)
    assert params["source"]["required"] is False
    assert (params["temperature"]["type"], params["temperature"]["default"]) == ("number", 0.2)
    assert (params["attempts"]["type"], params["attempts"]["default"]) == ("integer", 2)
    assert params["formal"]["type"] == "boolean"
    assert params["glossary"] == {
        "name": "glossary",
        "type": "array",
        "items": "string",
        "required": True,
        "description": "Terms to keep as they are",
    }
    assert (params["weights"]["items"], params["weights"]["required"]) == ("number", False)
    assert params["options"]["type"] == "object"


def test_separate_typedef_module_exports_object_and_async_arrow(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "notes.js",
        """
        const fs = require("fs");

        /**
         * @typedef {Object} NoteArgs
         * @property {string} title Title of the note
         * @property {"draft"|"final"} [state="draft"] Its state
         */

        /**
         * Save a note to disk.
         * @param {NoteArgs} args
         */
        const run = async ({ title, state }) => {
          return `${title}:${state}`;
        };

        module.exports = { run };
        """,
        executable=False,
    )
    script = discovered(tools_dir, config_dir, "notes")
    assert script["description"] == "Save a note to disk."
    params = by_name(script)
    assert params["title"]["description"] == "Title of the note" and params["title"]["required"]
    assert (params["state"]["enum"], params["state"]["default"]) == (["draft", "final"], "draft")


def test_dotted_params_and_esm_exports(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool(
        "resize.mjs",
        """
        /**
         * Resize an image.
         * @param {Object} args
         * @param {string} args.path - The image
         * @param {number} [args.scale=0.5] - The factor
         * @param {?string} args.format - Output format, the input's when null
         */
        export async function run(args) {
          return args.path;
        }
        """,
        executable=False,
    )
    script = discovered(tools_dir, config_dir, "resize")
    params = by_name(script)
    assert list(params) == ["path", "scale", "format"]
    assert params["path"]["required"] and not params["scale"]["required"]
    assert params["scale"]["default"] == 0.5
    assert params["format"]["required"] is False


def test_a_run_without_parameters_needs_no_jsdoc_tags(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "now.js",
        """
        /** Tell the current time. */
        exports.run = () => new Date().toISOString();
        """,
        executable=False,
    )
    script = discovered(tools_dir, config_dir, "now")
    assert (script["description"], script["parameters"]) == ("Tell the current time.", [])


def test_a_run_taking_arguments_nobody_declared_is_an_error(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "mystery.js",
        """
        // Does something.
        module.exports.run = async function (args) {
          return args.x;
        };
        """,
        executable=False,
    )
    errors = [str(error) for error in discover_tools(tools_dir, config_dir).errors]
    assert len(errors) == 1
    assert errors[0].startswith("mystery.js:2: run() takes arguments, but no JSDoc says which")
    assert not (config_dir / "tools" / "mystery.json").exists()


def test_files_that_do_not_export_run_are_not_claimed(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("lib.js", "exports.helper = function () {};\nfunction run() {}\n", executable=False)
    make_tool("notes.txt", "exports.run = 1\n", executable=False)
    assert discover_tools(tools_dir, config_dir).tools == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("string", JsType("string")),
        ("String", JsType("string")),
        ("Integer", JsType("integer")),
        ("string=", JsType("string", optional=True)),
        ("?number", JsType("number", optional=True)),
        ("string|undefined", JsType("string", optional=True)),
        ("number[]", JsType("array", items="number")),
        ("Array.<string>", JsType("array", items="string")),
        ("('a'|'b')", JsType("string", enum=["a", "b"])),
        ("1|2|3", JsType("integer", enum=[1, 2, 3])),
        ("Object<string, number>", JsType("object")),
        ("{a: string}", JsType("object")),
        ("*", JsType("any")),
        ("string|number", JsType("any")),
        ("Date", JsType("any", known=False)),
    ],
)
def test_read_type(text: str, expected: JsType) -> None:
    assert read_type(text) == expected


def test_without_node_the_file_is_not_a_tool_and_a_call_says_what_to_install(
    make_tool: MakeTool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make_tool("now.js", "/** Tell the time. */\nexports.run = () => Date.now();\n", executable=False)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    candidate = Candidate(path=path, relative_path="now.js", stat=path.stat())
    assert js_function.claims(candidate)

    async def declare() -> object:
        return await js_function.declare(candidate, Probe(1.0, "none"))

    with pytest.raises(NotATool) as raised:
        anyio.run(declare)
    assert raised.value.kind == "runtime-missing"
    assert "needs node (Node.js), which is not installed" in raised.value.reason
    with pytest.raises(ProcessStartError, match=r"needs node \(Node.js\), which is not installed"):
        function_argv(path, None, {})  # type: ignore[arg-type]
