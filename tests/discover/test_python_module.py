"""discover.python_module: Python tools read with `ast`, never imported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeTool
from toolkiln.discover import discover_tools


def discovered(tools_dir: Path, config_dir: Path, name: str) -> dict[str, Any]:
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, [str(error) for error in report.errors]
    script: dict[str, Any] = json.loads((config_dir / "tools" / f"{name}.json").read_text())["script_config"]
    return script


def errors_of(tools_dir: Path, config_dir: Path) -> list[str]:
    return [str(error) for error in discover_tools(tools_dir, config_dir).errors]


def test_docstring_params_and_first_paragraph(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool(
        "score.py",
        '''"""Score a lead.

More detail that is not the description.

@param company: The company (type: string, required: true)
@param size: Head count (type: integer, default: 10, min: 1)
"""
raise SystemExit("discovery must never import me")

def execute(params):
    return {}
''',
        executable=False,
    )
    script = discovered(tools_dir, config_dir, "score")
    assert script["dialect"] == "python"
    assert script["python_entry"] == "execute"
    assert script["description"] == "Score a lead."
    assert script["parameters"] == [
        {"name": "company", "description": "The company", "type": "string", "required": True},
        {
            "name": "size",
            "description": "Head count",
            "type": "integer",
            "required": False,
            "default": 10,
            "min": 1,
        },
    ]


def test_inputs_dict_in_registry_style(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool(
        "convert.py",
        '''"""Convert."""
INPUTS = {
    "value": {"type": "float", "required": True, "description": "How much"},
    "unit": {"type": "string", "enum": ["m", "ft"], "default": "m"},
    "tags": {"type": "list", "items": "str"},
    "where": "path",
}

def main(params):
    return params
''',
    )
    script = discovered(tools_dir, config_dir, "convert")
    assert script["python_entry"] == "main"
    by_name = {param["name"]: param for param in script["parameters"]}
    assert by_name["value"] == {
        "name": "value",
        "type": "number",
        "required": True,
        "description": "How much",
    }
    assert by_name["unit"]["enum"] == ["m", "ft"] and by_name["unit"]["default"] == "m"
    assert by_name["tags"]["type"] == "array" and by_name["tags"]["items"] == "string"
    assert by_name["where"]["kind"] == "path"


def test_signature_and_type_hints_become_keyword_parameters(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "sig.py",
        """from typing import Literal, Optional

def execute(name: str, count: int = 3, ratio: float = 0.5, mode: Literal["a", "b"] = "a",
            tags: list[str] | None = None, extra: Optional[dict] = None, anything=None, flag=False) -> dict:
    return {}
""",
    )
    script = discovered(tools_dir, config_dir, "sig")
    assert script["python_entry"] == "execute(**)"
    by_name = {param["name"]: param for param in script["parameters"]}
    assert by_name["name"] == {"name": "name", "type": "string", "required": True, "description": ""}
    assert by_name["count"]["type"] == "integer" and by_name["count"]["default"] == 3
    assert by_name["ratio"]["type"] == "number"
    assert by_name["mode"]["enum"] == ["a", "b"]
    assert by_name["tags"]["type"] == "array" and by_name["tags"]["items"] == "string"
    assert not by_name["tags"]["required"]
    assert by_name["extra"]["type"] == "object"
    assert by_name["anything"]["type"] == "any"
    assert by_name["flag"]["type"] == "boolean"


def test_typed_dict_parameters(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool(
        "typed.py",
        """from typing import NotRequired, TypedDict

class Params(TypedDict):
    query: str
    limit: NotRequired[int]

def execute(params: Params) -> dict:
    return {}
""",
    )
    script = discovered(tools_dir, config_dir, "typed")
    assert script["python_entry"] == "execute"
    assert [(p["name"], p["type"], p["required"]) for p in script["parameters"]] == [
        ("query", "string", True),
        ("limit", "integer", False),
    ]


def test_legacy_argparse_main_is_a_plain_script(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "legacy.py",
        '''"""Search things."""
import argparse

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--search-term", "-s", required=True, help="What to find")
    parser.add_argument("--max", type=int, default=5, choices=[5, 10])
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("files", nargs="*")
    parser.add_argument("--count", action="count")

if __name__ == "__main__":
    main()
''',
    )
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors
    script = json.loads((config_dir / "tools" / "legacy.json").read_text())["script_config"]
    assert script["python_entry"] == "script"
    assert [(p["name"], p["option"], p["type"]) for p in script["parameters"]] == [
        ("search_term", "--search-term", "string"),
        ("max", "--max", "integer"),
        ("verbose", "--verbose", "boolean"),
        ("files", "", "array"),
        ("count", "--count", "integer"),
    ]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "def execute(params):\n    return {}\n",
            "legacy-or-broken.py:1: execute(params) does not say what it takes",
        ),
        ("def execute(params:\n", "legacy-or-broken.py:1: is not valid Python"),
        ("async def execute(params):\n    pass\n", "must be a plain function, not async"),
        (
            'INPUTS = {"a": {"type": "colour"}}\ndef execute(p):\n    pass\n',
            ":1: INPUTS['a']: unknown type 'colour'",
        ),
        ("INPUTS = {'a': {'type': OTHER}}\ndef execute(p):\n    pass\n", ":1: INPUTS must be a literal"),
        ("def execute(when: datetime):\n    pass\n", "cannot read the type of 'when' (datetime)"),
        (
            '"""Doc.\n\n@param x: X (type: integer, default: no)\n"""\ndef execute(p):\n    pass\n',
            ":3: default",
        ),
    ],
)
def test_mistakes_are_reported_with_file_and_line(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, body: str, expected: str
) -> None:
    make_tool("ok.py", 'INPUTS = {}\ndef execute(params):\n    return {"fine": True}\n')
    make_tool("legacy-or-broken.py", body)
    errors = errors_of(tools_dir, config_dir)
    assert len(errors) == 1 and expected in errors[0], errors
    assert (config_dir / "tools" / "ok.json").exists()  # the other tools are discovered all the same


def test_files_that_are_not_python_tools(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("helpers.py", "def helper(x):\n    return x\n", executable=False)
    make_tool("notmain.py", "def main():\n    print('hi')\n", executable=False)  # no argparse, no params
    make_tool("script.txt", "def execute(params):\n    pass\n", executable=False)
    report = discover_tools(tools_dir, config_dir)
    assert report.tools == [] and not report.errors


def test_requirements_beside_the_module_are_recorded(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("leads/scrape.py", "INPUTS = {}\ndef execute(params):\n    return {}\n")
    (tools_dir / "leads" / "requirements.txt").write_text("requests>=2\n")
    assert discovered(tools_dir, config_dir, "leads__scrape")["requirements_file"] == "leads/requirements.txt"


def test_list_names_the_missing_requirements(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, run_cli: Any
) -> None:
    make_tool("leads/scrape.py", "INPUTS = {}\ndef execute(params):\n    return {}\n")
    (tools_dir / "leads" / "requirements.txt").write_text(
        "# comment\n--index-url https://example.invalid\nclick>=8\n"
        "no-such-package-anywhere==1.0 ; python_version > '3'\n"
    )
    assert run_cli("discover").exit_code == 0
    assert run_cli("build").exit_code == 0
    listed = run_cli("list")
    assert "warning: leads__scrape needs no-such-package-anywhere, not installed" in listed.stderr
    assert "click" not in listed.stderr
    as_json = json.loads(run_cli("list", "--json").stdout)
    assert as_json[0]["missing_requirements"] == ["no-such-package-anywhere"]


def test_an_executable_that_answers_help_itself_is_left_to_help_json(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "fresh.py",
        """#!/usr/bin/env python3
import json, sys

def execute(params):
    return params

if sys.argv[1:] == ["--help"]:
    print(json.dumps({"description": "Self-describing"}))
    print("{}", file=sys.stderr)
""",
    )
    assert discovered(tools_dir, config_dir, "fresh")["dialect"] == "help-json"
