"""The file formats: a parameter's rules, and the per-tool and compiled configs."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from toolkiln.model import (
    Catalog,
    Parameter,
    ScriptConfig,
    ToolConfig,
    is_sensitive_env_name,
    value_matches_type,
    value_problems,
)

NOT_JSON = "must be plain JSON (NaN and Infinity are not JSON numbers)"


def problem(**fields: Any) -> str:
    """The one message a rejected parameter gives."""
    with pytest.raises(ValidationError) as caught:
        Parameter.model_validate(fields)
    [detail] = caught.value.errors()
    return str(detail["msg"]).removeprefix("Value error, ")


# --- names -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a", "_x", "dry-run", "snake_case", "CamelCase9", "x" * 64, "path", "home"])
def test_good_parameter_names(name: str) -> None:
    assert Parameter(name=name).name == name


@pytest.mark.parametrize("name", ["", "1x", "-x", "a.b", "a b", "é", "x" * 65, "a/b"])
def test_bad_parameter_names(name: str) -> None:
    assert problem(name=name) == (
        f"parameter name {name!r} must start with a letter or _ and contain only "
        "letters, digits, _ and - (at most 64 characters)"
    )


@pytest.mark.parametrize(
    "name",
    ["PATH", "HOME", "IFS", "BASH_ENV", "NODE_OPTIONS", "LD_PRELOAD", "LD_LIBRARY_PATH",
     "DYLD_INSERT_LIBRARIES", "PYTHONPATH", "PYTHONSTARTUP", "LC_ALL", "BASH_FUNC_x", "TOOLKILN_TOKEN",
     "MCPD_CONFIG_SERVER_API_TOKEN"],
)  # fmt: skip
def test_sensitive_names_are_rejected(name: str) -> None:
    assert is_sensitive_env_name(name)
    assert problem(name=name).startswith(
        f"parameter name {name!r} would overwrite the environment variable {name} of the script, and "
    )
    assert problem(name=name).endswith(
        f"; rename the parameter (the script may still set {name} itself from it)"
    )


# An all-capitals name ending in PATH is a search path by convention (MY_PATH too).
@pytest.mark.parametrize("name", ["path", "Path", "ld_preload", "python", "lc", "my_PATH", "PATHS"])
def test_names_that_only_look_sensitive(name: str) -> None:
    assert not is_sensitive_env_name(name)
    assert Parameter(name=name).name == name


# --- consistency -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"type": "string", "items": "integer"}, "'items' applies only to type array"),
        ({"enum": []}, "'enum' must list at least one value"),
        ({"type": "boolean", "enum": [True]}, "'enum' does not apply to type boolean"),
        ({"type": "object", "enum": [{}]}, "'enum' does not apply to type object"),
        ({"type": "integer", "enum": [1, "2"]}, "enum value '2' is not of type integer"),
        ({"type": "integer", "enum": [1, True]}, "enum value True is not of type integer"),
        ({"type": "boolean", "min": 0}, "'min'/'max' do not apply to type boolean"),
        ({"type": "any", "max": 1}, "'min'/'max' do not apply to type any"),
        ({"type": "string", "min": -1}, "a length limit must be a whole number >= 0, not -1"),
        ({"type": "array", "max": 2.5}, "a length limit must be a whole number >= 0, not 2.5"),
        ({"type": "integer", "min": 3, "max": 2}, "'min' (3) is greater than 'max' (2)"),
        ({"type": "number", "min": float("nan")}, "'min' must be a finite number, not nan"),
        ({"type": "number", "max": float("inf")}, "'max' must be a finite number, not inf"),
        ({"type": "number", "default": float("-inf")}, f"'default' {NOT_JSON}"),
        ({"type": "any", "default": {"a": [float("nan")]}}, f"'default' {NOT_JSON}"),
        ({"type": "number", "enum": [1.0, float("nan")]}, f"'enum' {NOT_JSON}"),
        ({"type": "integer", "default": "3"}, "default '3': is not of type integer"),
        ({"type": "integer", "default": 1.5}, "default 1.5: is not of type integer"),
        ({"type": "number", "default": True}, "default True: is not of type number"),
        ({"type": "string", "enum": ["a"], "default": "b"}, "default 'b': is not one of ['a']"),
        ({"type": "integer", "min": 2, "default": 1}, "default 1: is below the minimum of 2"),
        ({"type": "number", "max": 2, "default": 2.5}, "default 2.5: is above the maximum of 2"),
        ({"type": "string", "min": 2, "default": "a"}, "default 'a': is below the minimum of 2 characters"),
        ({"type": "array", "max": 1, "default": [1, 2]}, "default [1, 2]: is above the maximum of 1 items"),
        ({"type": "array", "items": "string", "default": ["a", 1]},
         "default ['a', 1]: items must be of type string"),
    ],
)  # fmt: skip
def test_inconsistent_parameters(fields: dict[str, Any], message: str) -> None:
    assert problem(name="p", **fields) == f"parameter 'p': {message}"


@pytest.mark.parametrize(
    "fields",
    [
        {"type": "integer", "min": 1, "max": 1, "default": 1},
        {"type": "number", "min": -0.5, "max": 0.5, "default": 0},
        {"type": "string", "min": 0, "max": 3, "default": ""},
        {"type": "string", "min": 2.0},
        {"type": "array", "items": "integer", "min": 0, "default": []},
        {"type": "array", "items": "any", "default": [1, "a", None]},
        {"type": "number", "enum": [1, 2.5], "default": 1},
        {"type": "any", "enum": [1, "a"]},
        {"type": "object", "default": {"nested": [1, {"x": None}]}},
        {"type": "boolean", "default": False},
        {"required": True, "default": "kept"},
    ],
)
def test_consistent_parameters(fields: dict[str, Any]) -> None:
    assert Parameter(name="p", **fields).type == fields.get("type", "string")


def test_type_must_be_known() -> None:
    with pytest.raises(ValidationError) as caught:
        Parameter.model_validate({"name": "p", "type": "float"})
    assert caught.value.errors()[0]["loc"] == ("type",)


def test_unknown_keys_are_rejected() -> None:
    with pytest.raises(ValidationError) as caught:
        Parameter.model_validate({"name": "p", "colour": "red"})
    assert caught.value.errors()[0]["type"] == "extra_forbidden"


def test_parameters_are_frozen() -> None:
    param = Parameter(name="p")
    with pytest.raises(ValidationError):
        param.name = "q"  # type: ignore[misc]


def test_a_parameter_lists_only_what_it_declares() -> None:
    assert Parameter(name="p").model_dump() == {
        "name": "p",
        "type": "string",
        "description": "",
        "required": False,
    }
    dumped = Parameter(name="p", type="integer", default=0, min=0).model_dump()
    assert dumped == {
        "name": "p",
        "type": "integer",
        "description": "",
        "required": False,
        "default": 0,
        "min": 0,
    }


def test_a_dumped_parameter_loads_back_equal() -> None:
    param = Parameter(name="p", type="array", items="number", min=1, max=3, default=[1.5], description="d")
    assert Parameter.model_validate(param.model_dump(mode="json")) == param


# --- values ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "types"),
    [
        ("a", {"string", "any"}),
        (1, {"integer", "number", "any"}),
        (1.5, {"number", "any"}),
        (True, {"boolean", "any"}),
        ([1], {"array", "any"}),
        ({}, {"object", "any"}),
        (None, {"any"}),
    ],
)
def test_value_matches_type(value: object, types: set[str]) -> None:
    every = ("string", "integer", "number", "boolean", "array", "object", "any")
    assert {t for t in every if value_matches_type(value, t)} == types  # type: ignore[arg-type]


def test_value_problems() -> None:
    param = Parameter(name="n", type="integer", min=1, max=5)
    assert value_problems(param, 3) == []
    assert value_problems(param, 0) == ["is below the minimum of 1"]
    assert value_problems(param, 6) == ["is above the maximum of 5"]
    assert value_problems(param, "3") == ["is not of type integer"]
    words = Parameter(name="w", type="array", items="string", max=2)
    assert value_problems(words, ["a", "b", "c"]) == ["is above the maximum of 2 items"]
    assert value_problems(words, ["a", 2]) == ["items must be of type string"]


# --- configs ----------------------------------------------------------------------------


def script(**changes: Any) -> dict[str, Any]:
    return {"name": "t", "script_path": "t.sh", "script_type": "shell", "dialect": "annotations", **changes}


def test_a_minimal_tool_config_has_its_defaults() -> None:
    config = ToolConfig.model_validate({"script_config": script()})
    assert (config.format_version, config.enabled, config.tags, config.source) == (1, True, [], None)
    sc = config.script_config
    assert (sc.requires_confirmation, sc.timeout_seconds, sc.parameters) == (False, None, [])
    assert sc.workspace_config.allowed_paths == ["{TOOL_DIR}/workspace"]
    assert (sc.workspace_config.allow_absolute_paths, sc.workspace_config.follow_symlinks) == (False, True)


@pytest.mark.parametrize("name", ["", "a b", "utils/calc", "a.b", "x" * 65])
def test_tool_names_must_suit_mcp_clients(name: str) -> None:
    with pytest.raises(ValidationError) as caught:
        ScriptConfig.model_validate(script(name=name))
    assert "must be 1 to 64 characters of letters, digits, _ and -" in str(caught.value)


def test_a_parameter_declared_twice_is_rejected() -> None:
    with pytest.raises(ValidationError) as caught:
        ScriptConfig.model_validate(script(parameters=[{"name": "a"}, {"name": "b"}, {"name": "a"}]))
    assert "parameter 'a' is declared twice" in str(caught.value)


@pytest.mark.parametrize("timeout", [0, -1])
def test_timeout_must_be_positive(timeout: float) -> None:
    with pytest.raises(ValidationError):
        ScriptConfig.model_validate(script(timeout_seconds=timeout))


@pytest.mark.parametrize(
    "data",
    [
        {"format_version": 2, "script_config": script()},
        {"script_config": script(), "colour": "red"},
        {"script_config": script(dialect="yaml")},
        {"script_config": script(workspace_config={"allowed": []})},
        {"script_config": script(), "source": {"mtime_ns": 1, "size": 2}},
    ],
)
def test_tool_config_rejects(data: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ToolConfig.model_validate(data)


def test_catalog_needs_its_tools_dir() -> None:
    with pytest.raises(ValidationError):
        Catalog.model_validate({"tools": []})
    assert Catalog(tools_dir="../tools").tools == []
