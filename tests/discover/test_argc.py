"""The argc dialect: scripts shaped as argc's docs and llm-functions' tools write them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeTool
from toolkiln.conventions.argc.read import declarations_of
from toolkiln.conventions.base import NotATool
from toolkiln.discover import discover_tools
from toolkiln.errors import DiscoveryError

EVAL = 'eval "$(argc --argc-eval "$0" "$@")"\n'

# The shape of llm-functions' tools/demo_sh.sh: every kind of property, LLM_OUTPUT.
DEMO = (
    """\
#!/usr/bin/env bash
set -e

# @describe Show what a tool can take.
# A second line of the description.
# @option --string!                  A required string
# @option --string-enum![foo|bar]    A required string with choices
# @option --string-optional          An optional string
# @flag --boolean                    A flag
# @option --integer! <INT>           A required integer
# @option --number! <NUM>            A required number
# @option --array+ <VALUE>           A required array
# @option --array-optional*          An optional array

# @env LLM_OUTPUT=/dev/stdout The output path

main() {
    echo "$argc_string" >> "$LLM_OUTPUT"
}

"""
    + EVAL
)


def params(declaration: Any) -> dict[str, dict[str, Any]]:
    return {p.name: p.model_dump(exclude={"name"}) for p in declaration.parameters}


def test_the_llm_functions_demo_tool_gives_every_type() -> None:
    [declaration] = declarations_of(DEMO, "demo.sh")
    assert declaration.dialect == "argc"
    assert declaration.description == "Show what a tool can take.\nA second line of the description."
    assert params(declaration) == {
        "string": {"type": "string", "description": "A required string", "required": True,
                   "option": "--string"},
        "string_enum": {"type": "string", "description": "A required string with choices", "required": True,
                        "enum": ["foo", "bar"], "option": "--string-enum"},
        "string_optional": {"type": "string", "description": "An optional string", "required": False,
                            "option": "--string-optional"},
        "boolean": {"type": "boolean", "description": "A flag", "required": False, "default": False,
                    "option": "--boolean"},
        "integer": {"type": "integer", "description": "A required integer", "required": True,
                    "option": "--integer"},
        "number": {"type": "number", "description": "A required number", "required": True,
                   "option": "--number"},
        "array": {"type": "array", "items": "string", "description": "A required array", "required": True,
                  "min": 1, "option": "--array"},
        "array_optional": {"type": "array", "items": "string", "description": "An optional array",
                           "required": False, "option": "--array-optional"},
    }  # fmt: skip
    assert declaration.input_schema is None  # the parameters say it all
    assert declaration.warnings == []


def test_defaults_choices_short_forms_and_positionals() -> None:
    text = (
        """\
# @describe Fetch a page
# @option -u --url! <URL>          The page
# @option    --retries=3 <INT>     How often to retry
# @option    --ratio=0.5 <NUM>     A ratio
# @option    --count=lots <INT>    Not a number after all
# @option    --format[=md|html|text]  Output format
# @option    --level[low|high]     No default
# @option -c                       Short only
# @option    --theme[`_choice_theme`]  Choices from a function
# @option    --name=`whoami`       A default from a function
# @option    --tag*[a|b]           Several choices
# @flag   -v --verbose             Say more
# @arg    source!                  Where from
# @arg    mode[=fast|slow]         How
# @arg    rest*                    Everything else
main() { :; }
"""
        + EVAL
    )
    [declaration] = declarations_of(text, "fetch.sh")
    got = params(declaration)
    assert got["url"] == {"type": "string", "description": "The page", "required": True, "option": "--url"}
    assert got["retries"]["type"] == "integer" and got["retries"]["default"] == 3
    assert got["ratio"]["type"] == "number" and got["ratio"]["default"] == 0.5
    assert got["count"]["type"] == "string" and got["count"]["default"] == "lots"
    assert got["format"]["enum"] == ["md", "html", "text"] and got["format"]["default"] == "md"
    assert got["level"]["enum"] == ["low", "high"] and "default" not in got["level"]
    assert got["c"]["option"] == "-c"
    assert got["theme"] == {"type": "string", "description": "Choices from a function", "required": False,
                            "option": "--theme"}  # fmt: skip
    assert "default" not in got["name"]  # the script computes it when the option is left out
    assert got["tag"]["type"] == "array" and "each one of: a, b" in got["tag"]["description"]
    assert got["verbose"]["type"] == "boolean" and got["verbose"]["option"] == "--verbose"
    assert got["source"] == {"type": "string", "description": "Where from", "required": True, "option": ""}
    assert got["mode"]["enum"] == ["fast", "slow"] and got["mode"]["default"] == "fast"
    assert got["rest"]["type"] == "array" and got["rest"]["option"] == ""
    assert list(got)[-3:] == ["source", "mode", "rest"]  # positionals keep their order


AGENT = (
    """\
#!/usr/bin/env bash
set -e

# @env LLM_OUTPUT=/dev/stdout The output path

# @cmd Create a new file at the path with contents.
# @option --path! The path of the file
# @option --contents! The contents of the file
fs_create() {
    printf "%s" "$argc_contents" > "$argc_path"
}

# @cmd Apply changes to a file.
# ALWAYS PROVIDE THE FULL FILE CONTENTS.

# @option --path! The path of the file
# @option --contents! The new contents
# @meta require-tools git
fs_edit() { :; }

# @cmd Remove a todo
# @option --id! <INT> The task id
# @flag --force Even if it is open
del_todo() { :; }

# @cmd A helper no model should call
_internal() { :; }

_guard_path() { :; }

"""
    + EVAL
)


def test_each_subcommand_is_a_tool_with_its_own_parameters() -> None:
    declarations = declarations_of(AGENT, "agent.sh")
    assert isinstance(declarations, list)
    by_command = {d.command: d for d in declarations}
    assert list(by_command) == ["fs_create", "fs_edit", "del_todo"]  # not _internal, not _guard_path
    assert {d.name for d in declarations} == {None}  # named agent_<command> by discovery
    create, edit, delete = declarations
    path = {"type": "string", "description": "The path of the file", "required": True, "option": "--path"}
    assert params(create)["path"] == path
    assert list(params(create)) == ["path", "contents"]
    assert edit.description == "Apply changes to a file.\nALWAYS PROVIDE THE FULL FILE CONTENTS."
    assert params(delete)["id"]["type"] == "integer" and params(delete)["force"]["type"] == "boolean"
    assert list(params(delete)) == ["id", "force"]


def test_an_agents_tools_file_names_each_tool_after_its_function(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("agents/coder/tools.sh", AGENT)
    make_tool("todo.sh", AGENT)
    report = discover_tools(tools_dir, config_dir, probes="none")
    assert not report.errors
    assert sorted(tool.name for tool in report.tools) == [
        "del_todo", "fs_create", "fs_edit", "todo_del_todo", "todo_fs_create", "todo_fs_edit",
    ]  # fmt: skip
    config = json.loads((config_dir / "tools" / "fs_edit.json").read_text())["script_config"]
    assert (config["command"], config["script_path"]) == ("fs_edit", "agents/coder/tools.sh")
    again = discover_tools(tools_dir, config_dir, probes="none")
    assert {tool.change for tool in again.tools} == {"unchanged"}
    (config_dir / ".discovery.json").unlink()  # the long way: each command read again, and unchanged
    assert {tool.change for tool in discover_tools(tools_dir, config_dir, probes="none").tools} == {
        "unchanged"
    }


def test_with_a_main_the_script_itself_is_a_tool_too() -> None:
    text = (
        """\
# @describe Notes
# @option --dir=notes  Where notes live
# @cmd Add a note
# @option --text! The note
add() { :; }
main() { :; }
"""
        + EVAL
    )
    declarations = declarations_of(text, "notes.sh")
    assert isinstance(declarations, list)
    main, add = declarations
    assert (main.command, main.description, list(params(main))) == (None, "Notes", ["dir"])
    assert (add.command, list(params(add))) == ("add", ["dir", "text"])
    assert params(add)["dir"]["default"] == "notes"  # the script's own option: every command has it


def test_a_required_option_toolkiln_cannot_give_stops_the_tool_with_its_line() -> None:
    text = "# @describe Copy\n# @option --pair! <SRC> <DEST>  Two values at once\nmain() { :; }\n" + EVAL
    with pytest.raises(DiscoveryError) as caught:
        declarations_of(text, "copy.sh")
    assert caught.value.line == 2 and "--pair" in str(caught.value) and "<SRC> <DEST>" in str(caught.value)


def test_an_optional_one_is_left_out_with_a_warning() -> None:
    text = "# @describe Copy\n# @option --pair <SRC> <DEST>\n# @option --to!\nmain() { :; }\n" + EVAL
    [declaration] = declarations_of(text, "copy.sh")
    assert [p.name for p in declaration.parameters] == ["to"]
    assert [w.line for w in declaration.warnings] == [2]


def test_a_tag_that_does_not_parse_is_an_error_with_its_line() -> None:
    with pytest.raises(DiscoveryError) as caught:
        declarations_of("# @describe X\n# @option !!!\nmain() { :; }\n" + EVAL, "x.sh")
    assert caught.value.line == 2


def test_required_env_variables_are_the_servers_and_only_warned_about(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TOOLKILN_TEST_SEARCH_KEY", raising=False)
    text = (
        "# @describe Search\n# @env TOOLKILN_TEST_SEARCH_KEY! The key\n# @option --query!\nmain() { :; }\n"
        + EVAL
    )
    [declaration] = declarations_of(text, "search.sh")
    assert [p.name for p in declaration.parameters] == ["query"]
    assert "TOOLKILN_TEST_SEARCH_KEY" in str(declaration.warnings[0])
    monkeypatch.setenv("TOOLKILN_TEST_SEARCH_KEY", "k")
    assert declarations_of(text, "search.sh")[0].warnings == []


def discover(tools_dir: Path, config_dir: Path) -> tuple[dict[str, Any], Any]:
    report = discover_tools(tools_dir, config_dir)
    configs = {p.stem: json.loads(p.read_text()) for p in (config_dir / "tools").glob("*.json")}
    return configs, report


def test_discovery_reads_argc_files_and_leaves_the_annotations_dialect_alone(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("demo_sh.sh", DEMO, executable=False)  # llm-functions' tools are run by bash anyway
    make_tool("agent/tools.sh", AGENT)
    make_tool("annotated.sh", "#!/bin/bash\n# Tool: annotated\n# @param name: Who (type: string)\necho hi\n")
    make_tool("Argcfile.sh", "# @cmd Build it\nbuild() { :; }\n" + EVAL)
    make_tool("no_eval.sh", "#!/bin/bash\n# @describe Tags but no argc\n# @option --x\necho $1\n")
    configs, report = discover(tools_dir, config_dir)
    assert not report.errors
    assert {name: c["script_config"]["dialect"] for name, c in configs.items()} == {
        "demo_sh": "argc",
        "fs_create": "argc",
        "fs_edit": "argc",
        "del_todo": "argc",
        "annotated": "annotations",
    }
    assert configs["demo_sh"]["script_config"]["parameters"][0]["name"] == "string"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("name", "text", "kind"),
    [
        ("Argcfile.sh", "# @cmd Build\nbuild() { :; }\n" + EVAL, "argc-taskfile"),
        ("tags.sh", "# @describe Tags\n# @option --x\necho hi\n", "argc-no-eval"),
    ],
)
async def test_files_that_are_not_tools_say_why(tmp_path: Path, name: str, text: str, kind: str) -> None:
    from toolkiln.conventions.argc import read as argc
    from toolkiln.conventions.base import Candidate, Probe

    path = tmp_path / name
    path.write_text(text)
    candidate = Candidate(path, name, path.stat())
    assert argc.claims(candidate)
    with pytest.raises(NotATool) as caught:
        await argc.declare(candidate, Probe(1.0, "none"))
    assert caught.value.kind == kind


def test_a_command_removed_from_the_script_leaves_its_config_missing(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    script = make_tool("agents/coder/tools.sh", AGENT)
    discover_tools(tools_dir, config_dir, probes="none")
    script.write_text(
        AGENT.replace("fs_edit() { :; }", "_fs_edit() { :; }").replace("# @cmd Apply", "# Apply")
    )
    report = discover_tools(tools_dir, config_dir, probes="none")
    assert {tool.name: tool.change for tool in report.tools} == {
        "fs_create": "updated", "del_todo": "updated", "fs_edit": "missing",
    }  # fmt: skip
    [warning] = [w for w in report.warnings if "fs_edit" in str(w)]
    assert "no longer declares the tool 'fs_edit' (it declares del_todo, fs_create)" in str(warning)


# A Python function tool whose author also wrote argc tags in its header comments (to
# document it, or for a wrapper); Python cannot call argc, its `run` is the tool.
PYTHON_WITH_TAGS = """\
#!/usr/bin/env python3
# ------------------------------------------------------------------
# @describe Turn a word around.
# @option --word! <TEXT> The word
# @flag --upper Shout it
# ------------------------------------------------------------------


def run(word: str, upper: bool = False) -> str:
    \"\"\"Turn a word around.\"\"\"
    return word[::-1].upper() if upper else word[::-1]
"""


def test_a_python_function_with_argc_tags_in_its_comments_is_a_function_tool(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("reverse.py", PYTHON_WITH_TAGS)
    make_tool(
        "tags_only.py", "# @describe Tags and nothing else\n# @option --x\nprint('hi')\n", executable=False
    )
    configs, report = discover(tools_dir, config_dir)
    assert not report.errors
    script_config = configs["reverse"]["script_config"]
    assert (script_config["dialect"], script_config["python_entry"]) == ("python", "run(**)")
    assert [(p["name"], p["type"], p.get("required", False)) for p in script_config["parameters"]] == [
        ("word", "string", True),
        ("upper", "boolean", False),
    ]
    assert [(n.path, n.kind) for n in report.not_tools] == [("tags_only.py", "argc-no-eval")]
