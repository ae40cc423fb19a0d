"""Parameters to JSON Schema, and arguments checked against it in readable sentences."""

from __future__ import annotations

from typing import Any

import pytest

from toolkiln.model import Parameter
from toolkiln.schema import (
    ArgumentChecker,
    parameter_to_schema,
    parameters_to_schema,
    parse_cli_value,
    prepare_arguments,
)

PARAMETERS = [
    Parameter(name="text", type="string", required=True, min=2, max=4),
    Parameter(name="count", type="integer", min=1, max=10, default=5),
    Parameter(name="mode", type="string", enum=["a", "b"]),
    Parameter(name="ids", type="array", items="integer", min=1, max=2),
    Parameter(name="ratio", type="number"),
    Parameter(name="flag", type="boolean", default=False),
    Parameter(name="options", type="object"),
    Parameter(name="anything", type="any"),
]
SCHEMA = parameters_to_schema(PARAMETERS)
ACCEPTS = "(this tool accepts: anything, count, flag, ids, mode, options, ratio, text)"


@pytest.fixture(scope="module")
def checker() -> ArgumentChecker:
    return ArgumentChecker(SCHEMA)


# --- schema ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("param", "schema"),
    [
        (Parameter(name="p"), {"type": "string"}),
        (Parameter(name="p", type="any"), {}),
        (Parameter(name="p", description="d"), {"type": "string", "description": "d"}),
        (Parameter(name="p", min=2.0, max=3), {"type": "string", "minLength": 2, "maxLength": 3}),
        (Parameter(name="p", type="integer", min=-1.0), {"type": "integer", "minimum": -1}),
        (Parameter(name="p", type="number", min=0.5, max=2),
         {"type": "number", "minimum": 0.5, "maximum": 2}),
        (Parameter(name="p", type="array", min=0), {"type": "array", "minItems": 0}),
        (Parameter(name="p", type="array", items="any"), {"type": "array"}),
        (Parameter(name="p", type="array", items="object"), {"type": "array", "items": {"type": "object"}}),
        (Parameter(name="p", type="integer", enum=[1, 2], default=2),
         {"type": "integer", "enum": [1, 2], "default": 2}),
        (Parameter(name="p", type="boolean", default=False), {"type": "boolean", "default": False}),
        (Parameter(name="p", default=""), {"type": "string", "default": ""}),
    ],
)  # fmt: skip
def test_parameter_to_schema(param: Parameter, schema: dict[str, Any]) -> None:
    assert parameter_to_schema(param) == schema


def test_whole_bounds_are_integers_in_the_schema() -> None:
    schema = parameter_to_schema(Parameter(name="p", min=2.0, max=3.0))
    assert isinstance(schema["minLength"], int)
    assert isinstance(schema["maxLength"], int)


def test_schema_of_a_tool() -> None:
    assert SCHEMA["type"] == "object"
    assert SCHEMA["additionalProperties"] is False
    assert SCHEMA["required"] == ["text"]
    assert list(SCHEMA["properties"]) == [p.name for p in PARAMETERS]


def test_schema_without_required_parameters_has_no_required_list() -> None:
    assert "required" not in parameters_to_schema([Parameter(name="p")])


def test_the_schema_does_not_share_the_enum_list() -> None:
    param = Parameter(name="p", enum=["a"])
    parameter_to_schema(param)["enum"].append("b")
    assert param.enum == ["a"]


# --- problems ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments",
    [
        {"text": "ab"},
        {"text": "abcd", "count": 1, "mode": "b", "ids": [1, 2], "ratio": 1, "flag": True},
        {"text": "abc", "ratio": 0.5, "options": {"k": [1]}, "anything": None},
        {"text": "abc", "count": 10, "anything": [1, "x"]},
    ],
)
def test_valid_arguments(checker: ArgumentChecker, arguments: dict[str, Any]) -> None:
    assert checker.problems(arguments) == []


def test_missing_required(checker: ArgumentChecker) -> None:
    assert checker.problems({}) == ["'text' is required"]


def test_several_missing_required() -> None:
    checker = ArgumentChecker(
        parameters_to_schema([Parameter(name="a", required=True), Parameter(name="b", required=True)])
    )
    assert checker.problems({}) == ["'a' is required", "'b' is required"]


def test_unknown_arguments(checker: ArgumentChecker) -> None:
    assert checker.problems({"text": "abc", "zz": 1, "PATH": "/tmp"}) == [
        f"unknown argument 'PATH', 'zz' {ACCEPTS}"
    ]


def test_unknown_argument_to_a_tool_without_parameters() -> None:
    assert ArgumentChecker(parameters_to_schema([])).problems({"x": 1}) == [
        "unknown argument 'x' (this tool accepts: none)"
    ]


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"text": 1}, "text: 1 must be of type string"),
        ({"text": "abc", "count": "3"}, 'count: "3" must be of type integer'),
        ({"text": "abc", "count": 1.5}, "count: 1.5 must be of type integer"),
        ({"text": "abc", "count": True}, "count: true must be of type integer"),
        ({"text": "abc", "ratio": "x"}, 'ratio: "x" must be of type number'),
        ({"text": "abc", "flag": "true"}, 'flag: "true" must be of type boolean'),
        ({"text": "abc", "options": []}, "options: [] must be of type object"),
        ({"text": "abc", "ids": "1,2"}, 'ids: "1,2" must be of type array'),
        ({"text": "abc", "ids": ["a"]}, 'ids.0: "a" must be of type integer'),
        ({"text": "abc", "mode": "c"}, 'mode: "c" must be one of ["a", "b"]'),
        ({"text": "a"}, 'text: "a" must be at least 2 characters long'),
        ({"text": "abcde"}, 'text: "abcde" must be at most 4 characters long'),
        ({"text": "abc", "count": 0}, "count: 0 must be at least 1"),
        ({"text": "abc", "count": 11}, "count: 11 must be at most 10"),
        ({"text": "abc", "ids": []}, "ids: [] must have at least 1 item"),
        ({"text": "abc", "ids": [1, 2, 3]}, "ids: [1, 2, 3] must have at most 2 items"),
    ],
)
def test_each_constraint_in_a_sentence(
    checker: ArgumentChecker, arguments: dict[str, Any], problem: str
) -> None:
    assert checker.problems(arguments) == [problem]


def test_every_violated_constraint_is_listed(checker: ArgumentChecker) -> None:
    problems = checker.problems(
        {"count": 0, "mode": "c", "ids": [], "ratio": "x", "flag": 1, "options": [], "extra": True}
    )
    # Problems with the whole object first, then one per argument in name order.
    assert problems == [
        f"unknown argument 'extra' {ACCEPTS}",
        "'text' is required",
        "count: 0 must be at least 1",
        "flag: 1 must be of type boolean",
        "ids: [] must have at least 1 item",
        'mode: "c" must be one of ["a", "b"]',
        "options: [] must be of type object",
        'ratio: "x" must be of type number',
    ]


def test_several_problems_with_one_argument() -> None:
    checker = ArgumentChecker(
        parameters_to_schema([Parameter(name="ids", type="array", items="integer", max=1)])
    )
    assert checker.problems({"ids": ["a", "b"]}) == [
        'ids: ["a", "b"] must have at most 1 item',
        'ids.0: "a" must be of type integer',
        'ids.1: "b" must be of type integer',
    ]


def test_long_values_are_shortened(checker: ArgumentChecker) -> None:
    [problem] = checker.problems({"text": "x" * 200})
    assert problem == f'text: "{"x" * 56}... must be at most 4 characters long'


def test_a_tool_without_parameters_accepts_only_an_empty_call() -> None:
    checker = ArgumentChecker(parameters_to_schema([]))
    assert checker.problems({}) == []
    assert checker.problems({"a": 1}) == ["unknown argument 'a' (this tool accepts: none)"]


# --- defaults -----------------------------------------------------------------------------------


def test_prepare_arguments_fills_only_what_is_missing() -> None:
    schema = parameters_to_schema(
        [
            Parameter(name="count", type="integer", default=5),
            Parameter(name="flag", type="boolean", default=False),
            Parameter(name="empty", default=""),
            Parameter(name="zero", type="number", default=0),
            Parameter(name="none"),
            Parameter(name="given", default="default"),
        ]
    )
    arguments = {"given": "mine"}
    assert prepare_arguments(schema, arguments) == {
        "count": 5,
        "flag": False,
        "empty": "",
        "zero": 0,
        "given": "mine",
    }
    assert arguments == {"given": "mine"}


def test_prepare_arguments_keeps_unknown_arguments_for_the_checker_to_reject() -> None:
    assert prepare_arguments(SCHEMA, {"zz": 1}) == {"zz": 1, "count": 5, "flag": False}


def test_prepare_arguments_without_properties() -> None:
    assert prepare_arguments({"type": "object"}, {"a": 1}) == {"a": 1}


def test_defaults_pass_the_checker(checker: ArgumentChecker) -> None:
    assert checker.problems(prepare_arguments(SCHEMA, {"text": "abc"})) == []


# --- command-line values -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("param", "text", "value"),
    [
        (Parameter(name="p"), "3", "3"),
        (Parameter(name="p"), "true", "true"),
        (Parameter(name="p"), '"quoted"', '"quoted"'),
        (Parameter(name="p"), "", ""),
        (Parameter(name="p", type="integer"), "3", 3),
        (Parameter(name="p", type="integer"), "abc", "abc"),
        (Parameter(name="p", type="number"), "2.5", 2.5),
        (Parameter(name="p", type="boolean"), "true", True),
        (Parameter(name="p", type="boolean"), "yes", "yes"),
        (Parameter(name="p", type="array"), '["a", "b"]', ["a", "b"]),
        (Parameter(name="p", type="array"), "a,b", "a,b"),
        (Parameter(name="p", type="object"), '{"a": 1}', {"a": 1}),
        (Parameter(name="p", type="any"), "null", None),
        (Parameter(name="p", type="any"), "hello", "hello"),
        (None, "3", 3),
        (None, "word", "word"),
    ],
)
def test_parse_cli_value(param: Parameter | None, text: str, value: object) -> None:
    assert parse_cli_value(param, text) == value


def test_a_value_that_is_not_json_gets_a_type_error_not_a_parse_error() -> None:
    param = Parameter(name="n", type="integer")
    checker = ArgumentChecker(parameters_to_schema([param]))
    assert checker.problems({"n": parse_cli_value(param, "three")}) == ['n: "three" must be of type integer']


def test_prepare_arguments_makes_whole_floats_of_integer_parameters_ints() -> None:
    schema = parameters_to_schema([Parameter(name="n", type="integer"), Parameter(name="x", type="number")])
    prepared = prepare_arguments(schema, {"n": 3.0, "x": 2.0})
    assert prepared == {"n": 3, "x": 2.0}
    assert isinstance(prepared["n"], int)
    assert isinstance(prepared["x"], float)
