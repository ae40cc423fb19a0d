"""What the dashboard shows of the tools, its forms, and the one write it makes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.serve.dashboard.conftest import ECHO, GREET
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.errors import ConfigError
from toolkiln.runner import Registry
from toolkiln.serve.dashboard.catalog import FormField, form_fields, tool_rows
from toolkiln.switches import set_tool_enabled as set_enabled


@pytest.fixture
def registry(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Registry:
    make_tool("echo.sh", ECHO)
    make_tool("greet/run.sh", GREET)
    assert not discover_tools(tools_dir, config_dir).errors
    config = json.loads((config_dir / "tools" / "greet.json").read_text())
    config["script_config"].update(read_only=True, requires_confirmation=True)
    config["tags"] = ["demo"]
    (config_dir / "tools" / "greet.json").write_text(json.dumps(config))
    set_enabled(config_dir, "echo", False)
    build_catalog(config_dir, tools_dir)
    return Registry.load(config_dir / "tools.json")


def test_a_row_per_config_enabled_or_not(registry: Registry, config_dir: Path) -> None:
    echo, greet = tool_rows(registry, {}, config_dir)
    assert (echo.key, echo.enabled, echo.served, echo.status) == ("echo", False, False, "disabled")
    assert echo.fields == []  # not served: nothing to try
    assert json.loads(echo.schema)["required"] == ["message"]  # what it would be served with
    assert (greet.name, greet.dialect, greet.script, greet.served) == (
        "greet",
        "annotations",
        "greet/run.sh",
        True,
    )
    assert greet.hints == {"read-only": True}
    assert greet.flags == ["asks for confirmation"]
    assert greet.tags == ["demo"]
    assert [field.name for field in greet.fields] == ["name", "times", "style", "sign"]


def test_a_broken_config_is_a_row_that_says_why(registry: Registry, config_dir: Path) -> None:
    (config_dir / "tools" / "echo.json").write_text('{"enabled": true}')
    echo, _ = tool_rows(registry, {}, config_dir)
    assert echo.status == "broken config"
    assert "script_config: required key is missing" in (echo.problem or "")


def test_the_listed_schema_makes_the_form(registry: Registry, config_dir: Path) -> None:
    listed = {"greet": {"type": "object", "properties": {"confirm": {"type": "boolean", "const": True}}}}
    _, greet = tool_rows(registry, listed, config_dir)
    assert greet.fields == [FormField(name="confirm", kind="boolean", required=False)]


def test_form_fields_of_every_kind() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "maxLength": 40, "description": "Who"},
            "text": {"type": "string"},
            "pin": {"type": "string"},
            "count": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2},
            "ratio": {"type": "number"},
            "loud": {"type": "boolean"},
            "style": {"type": "string", "enum": ["plain", "loud"], "default": "plain"},
            "level": {"enum": [1, 2]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "anything": {},
        },
        "required": ["name"],
    }
    fields = {field.name: field for field in form_fields(schema, secrets=["pin"])}
    assert {name: field.kind for name, field in fields.items()} == {
        "name": "text", "text": "text", "pin": "secret", "count": "integer", "ratio": "number",
        "loud": "boolean", "style": "choice", "level": "choice", "tags": "json", "anything": "json",
    }  # fmt: skip
    assert fields["name"].required and not fields["text"].required
    assert (fields["name"].maximum, fields["name"].multiline, fields["text"].multiline) == (40, False, False)
    assert (fields["count"].minimum, fields["count"].maximum, fields["count"].default) == (1, 5, "2")
    assert fields["style"].default == "plain"  # shown as it is
    assert fields["style"].options == [('"plain"', "plain"), ('"loud"', "loud")]
    assert fields["level"].options == [("1", "1"), ("2", "2")]  # each option's value is JSON
    assert form_fields({"type": "object"}) == []


def test_a_string_is_one_line_unless_its_schema_says_it_holds_a_document() -> None:
    schema = {
        "type": "object",
        "properties": {
            "plain": {"type": "string"},
            "long": {"type": "string", "maxLength": 100000},  # long, but still one line
            "note": {"type": "string", "contentMediaType": "text/plain"},
            "page": {"type": "string", "contentMediaType": "text/markdown"},
            "mail": {"type": "string", "format": "email"},
        },
    }
    fields = {field.name: field for field in form_fields(schema)}
    assert {name: field.multiline for name, field in fields.items()} == {
        "plain": False, "long": False, "note": True, "page": True, "mail": False,
    }  # fmt: skip
    assert fields["mail"].input_type == "email" and fields["plain"].input_type == "text"


def test_a_multiline_parameter_says_so_in_its_schema(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "post/run.sh",
        "#!/bin/bash\n# Tool: post\n# Description: Post a note\n"
        "# @param title: The title (type: string)\n"
        "# @param body: The note (type: string, multiline: true)\necho ok\n",
    )
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    [row] = tool_rows(Registry.load(config_dir / "tools.json"), {}, config_dir)
    assert json.loads(row.schema)["properties"]["body"]["contentMediaType"] == "text/plain"
    assert [(field.name, field.multiline) for field in row.fields] == [("title", False), ("body", True)]


def test_elicitation_enums_are_choices_with_their_titles() -> None:
    schema = {
        "type": "object",
        "properties": {
            "titled": {
                "type": "string",
                "oneOf": [{"const": "a", "title": "First"}, {"const": "b", "title": "Second"}],
            },
            "legacy": {"type": "string", "enum": ["x", "y"], "enumNames": ["Ex", "Why"], "default": "y"},
            "color": {"type": "string", "title": "Your colour"},
        },
    }
    fields = {field.name: field for field in form_fields(schema)}
    assert fields["titled"].options == [('"a"', "First"), ('"b"', "Second")]
    assert fields["legacy"].options == [('"x"', "Ex"), ('"y"', "Why")]
    assert fields["legacy"].default_json == '"y"'
    assert fields["color"].title == "Your colour"


def test_set_enabled_changes_that_key_only(registry: Registry, config_dir: Path) -> None:
    path = config_dir / "tools" / "greet.json"
    before = path.read_text()
    assert set_enabled(config_dir, "greet", False) is True
    assert json.loads(path.read_text()) == {**json.loads(before), "enabled": False}
    assert set_enabled(config_dir, "greet", False) is False
    assert set_enabled(config_dir, "greet", True) is True
    assert json.loads(path.read_text()) == json.loads(before)


@pytest.mark.parametrize("key", ["../server", "nope", "greet.json", "", "a/b"])
def test_set_enabled_refuses_what_is_no_tool_config(registry: Registry, config_dir: Path, key: str) -> None:
    with pytest.raises(ConfigError):
        set_enabled(config_dir, key, False)


def test_set_enabled_refuses_a_broken_config(registry: Registry, config_dir: Path) -> None:
    path = config_dir / "tools" / "greet.json"
    path.write_text("{oops")
    with pytest.raises(ConfigError, match="invalid JSON"):
        set_enabled(config_dir, "greet", False)
    assert path.read_text() == "{oops"
