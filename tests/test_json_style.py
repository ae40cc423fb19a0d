"""toolkiln/json_style.py: the text of every file toolkiln writes is json.dumps's, byte for byte."""

from __future__ import annotations

import enum
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkiln.json_style import render_json
from toolkiln.model import Parameter, ScriptConfig, ToolConfig


def dumps(data: Any, sort_keys: bool = True) -> str:
    return json.dumps(data, indent=2, sort_keys=sort_keys, ensure_ascii=False) + "\n"


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
plain = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(plain)
def test_plain_data_is_written_as_json_dumps_writes_it(data: Any) -> None:
    assert render_json(data) == dumps(data)


class Colour(enum.IntEnum):
    RED = 1


class Name(enum.StrEnum):
    A = "a"


@pytest.mark.parametrize(
    "data",
    [
        {},
        [],
        "",
        {"k": {}, "l": [], "m": [[]], "é": '\u2028 \x00 \x1f \x7f \ud800 "\\ \n\t'},
        {"inf": math.inf, "-inf": -math.inf, "nan": math.nan, "tiny": 5e-324, "big": 1e300, "f": 1.0},
        {1: "int key", 2: "sorted as numbers"},  # not plain: json.dumps writes it
        {True: 2, 1.5: 3},
        {None: 1},
        {"colour": Colour.RED, Name.A: Name.A},  # subclasses
        ("a", ("tuple",)),
        {"a": ("tuple",)},
    ],
)
def test_data_that_is_not_plain_is_left_to_json_dumps(data: Any) -> None:
    assert render_json(data) == dumps(data)
    assert render_json(data, sort_keys=False) == dumps(data, sort_keys=False)


def test_what_json_cannot_write_fails_as_json_dumps_fails() -> None:
    for data in ({"v": object()}, {"a": 1, 2: "b"}, {"v": {1, 2}}):
        with pytest.raises(TypeError) as ours:
            render_json(data)
        with pytest.raises(TypeError) as theirs:
            dumps(data)
        assert str(ours.value) == str(theirs.value)
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="Circular reference"):
        render_json(cycle)


def test_a_tool_config_is_written_as_json_dumps_writes_it() -> None:
    parameter = Parameter(name="count", type="integer", description="Times «x»", required=False, default=1)
    config = ToolConfig(
        script_config=ScriptConfig(
            name="t",
            description="d",
            script_path="t.sh",
            script_type="shell",
            dialect="help-json",
            parameters=[parameter],
        )
    )
    data = config.model_dump(mode="json")
    assert render_json(data) == dumps(data)
