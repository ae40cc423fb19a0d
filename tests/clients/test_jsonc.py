"""The JSONC reader and editor: values as `json.loads` reads them, errors with line and
column, and edits that leave every other character of the file as it was."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolkiln.clients.jsonc import JsoncError, parse_jsonc
from toolkiln.clients.jsonc_edit import read_jsonc, render_jsonc

ENTRY = {"type": "stdio", "command": "/opt/toolkiln/bin/toolkiln", "args": ["serve", "/srv/tools"]}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@given(json_values, st.sampled_from([None, 2, "\t"]))
def test_plain_json_reads_as_json_loads_reads_it(value: Any, indent: int | str | None) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    parsed = parse_jsonc(text)
    assert parsed is not None and parsed.data == json.loads(text)
    assert (parsed.start, parsed.end) == (0, len(text))


@given(st.dictionaries(st.text(max_size=8), json_values, max_size=4), json_values)
def test_an_edit_changes_that_value_and_nothing_else(data: dict[str, Any], value: Any) -> None:
    text = "// mine\n" + json.dumps({"keep": data, "servers": {"a": 1}}, indent=2) + "\n/* end */\n"
    document = read_jsonc(text)
    document["servers"]["new"] = value
    written = render_jsonc(document)
    assert written.startswith("// mine\n") and written.endswith("\n/* end */\n")
    assert json.dumps(data, indent=2).replace("\n", "\n  ") in written
    assert parse_jsonc(written).data == {"keep": data, "servers": {"a": 1, "new": value}}  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ('{\n  "a": [1,, 2]\n}', (2, 11), "expected a value, found ','"),
        ('{\n  "a": 1\n  "b": 2\n}', (3, 3), "expected ',' or '}', found '\"'"),
        ("{\n  // fine\n  /* never closed\n}", (3, 3), "a /[*] comment is never closed"),
        ('{"a": "tab\there"}', (1, 11), "Invalid control character"),
        ('{"a": "open}', (1, 7), "a string is never closed"),
        ("{'a': 1}", (1, 2), "expected a property name in double quotes"),
        ('{"a": NaN}', (1, 7), "expected a value, found 'N'"),
        ('{"a": 01}', (1, 8), "expected ',' or '}', found '1'"),
        ('{"a": 1} {"b": 2}', (1, 10), "expected the end of the file"),
        ('{"a": 1', (1, 8), "found the end of the file"),
    ],
)
def test_what_is_not_jsonc_is_named_with_line_and_column(
    text: str, where: tuple[int, int], message: str
) -> None:
    with pytest.raises(JsoncError, match=message) as raised:
        parse_jsonc(text)
    assert raised.value.locate(text) == where


def test_nesting_past_the_bound_is_an_error_not_a_crash() -> None:
    with pytest.raises(JsoncError, match="nested more than"):
        parse_jsonc("[" * 100_000)


def test_only_comments_count_as_no_value_and_stay() -> None:
    assert parse_jsonc("// nothing yet\n/* really */\n") is None
    document = read_jsonc("// nothing yet\n")
    document["servers"] = {"toolkiln": ENTRY}
    written = render_jsonc(document)
    assert written.startswith("// nothing yet\n{\n")
    assert parse_jsonc(written).data == {"servers": {"toolkiln": ENTRY}}  # type: ignore[union-attr]


def install(text: str, key: str = "servers") -> str:
    document = read_jsonc(text)
    document.setdefault(key, {})["toolkiln"] = ENTRY
    return render_jsonc(document)


def test_a_one_line_file_gets_the_entry_on_lines_of_its_own() -> None:
    assert install('{"servers": {}}') == (
        '{"servers": {\n  "toolkiln": {\n    "type": "stdio",\n    "command": "/opt/toolkiln/bin/toolkiln",\n'
        '    "args": [\n      "serve",\n      "/srv/tools"\n    ]\n  }\n}}'
    )


def test_the_files_indentation_and_comma_style_are_followed() -> None:
    text = '{\n\t"servers": {\n\t\t"a": {"command": "a"},\n\t},\n}\n'
    written = install(text)
    assert written.startswith(
        '{\n\t"servers": {\n\t\t"a": {"command": "a"},\n\t\t"toolkiln": {\n\t\t\t"type"'
    )
    assert written.endswith("\t\t\t]\n\t\t},\n\t},\n}\n"), "a trailing comma after the new entry too"


def test_a_new_servers_object_goes_after_the_last_key_and_its_comment() -> None:
    text = '{\n    "editor.fontSize": 14 // big\n}\n'
    written = install(text)
    assert written.startswith(
        '{\n    "editor.fontSize": 14, // big\n    "servers": {\n        "toolkiln": {\n'
    )
