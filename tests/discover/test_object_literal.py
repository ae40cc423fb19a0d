"""Object literals read as data: JSON, JavaScript literal syntax and Python dict displays."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from toolkiln.conventions.javascript.object_literal import LiteralError, ObjectLiteral, parse_object_literal


def parse(text: str) -> ObjectLiteral:
    return parse_object_literal(textwrap.dedent(text).strip())


def value(text: str) -> Any:
    return parse(text).value


def error(text: str) -> LiteralError:
    with pytest.raises(LiteralError) as caught:
        parse(text)
    return caught.value


def test_json_is_read_as_json() -> None:
    assert value('{"a": 1, "b": [true, false, null], "c": {"d": "e"}, "f": -2.5}') == {
        "a": 1,
        "b": [True, False, None],
        "c": {"d": "e"},
        "f": -2.5,
    }


def test_javascript_literal_syntax() -> None:
    assert value(
        """
        {
          // a line comment
          input: {
            title: { type: 'string', required: true, },  /* a block
            comment over lines */
            $count: { "type": `number`, min: -1_000, max: 0x1F, step: .5, big: 1e3, },
            'quoted key': [1, 2, 3,],
            42: "a number key",
          },
        }
        """
    ) == {
        "input": {
            "title": {"type": "string", "required": True},
            "$count": {"type": "number", "min": -1000, "max": 31, "step": 0.5, "big": 1000},
            "quoted key": [1, 2, 3],
            "42": "a number key",
        }
    }


def test_python_dict_display() -> None:
    assert value(
        """
        {
            "input": {  # a Python comment
                "flag": {"type": "boolean", "default": True, "required": False},
                "none": None,
            },
        }
        """
    ) == {"input": {"flag": {"type": "boolean", "default": True, "required": False}, "none": None}}


def test_whole_numbers_are_integers_as_in_javascript() -> None:
    parsed = value("{a: 2.0, b: 1e3, c: 2.5, d: 10, e: -0x10, f: 5.}")
    assert parsed == {"a": 2, "b": 1000, "c": 2.5, "d": 10, "e": -16, "f": 5}
    assert [type(parsed[key]) for key in "abcdef"] == [int, int, float, int, int, int]


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        (r"'it\'s'", "it's"),
        (r'"say \"hi\""', 'say "hi"'),
        (r"'tab\tnew\nline'", "tab\tnew\nline"),
        (r"'back\\slash'", "back\\slash"),
        (r"'\x41\u0042\u{43}'", "ABC"),
        (r"'\u{1F600}'", "\U0001f600"),
        (r"'\uD83D\uDE00'", "\U0001f600"),
        (r"'\/\q'", "/q"),
        (r"'nul\0'", "nul\0"),
        ("'héllo ✓'", "héllo ✓"),
        ("'a // not a comment # nor this'", "a // not a comment # nor this"),
        ("'line \\\ncontinued'", "line continued"),
        ("`back ticks`", "back ticks"),
        ("\"mixed 'quotes'\"", "mixed 'quotes'"),
    ],
)
def test_strings_and_escapes(literal: str, expected: str) -> None:
    assert parse_object_literal("{k: " + literal + "}").value == {"k": expected}


def test_lines_of_each_part() -> None:
    parsed = parse(
        """
        {
          input: {
            title: { type: 'string',
                     required: true },
            /* two
               lines */
            tags: [
              'a',
              'b',
            ],
          },
        }
        """
    )
    assert parsed.lines == {
        (): 1,
        ("input",): 2,
        ("input", "title"): 3,
        ("input", "title", "type"): 3,
        ("input", "title", "required"): 4,
        ("input", "tags"): 7,
        ("input", "tags", 0): 8,
        ("input", "tags", 1): 9,
    }
    assert parsed.line_of(("input", "title", "default")) == 3  # the nearest part that is there


def test_first_line_and_start_offset() -> None:
    text = "const x = 1\nschema = {\n  a: 1,\n  b: ?\n}\n"
    with pytest.raises(LiteralError) as caught:
        parse_object_literal(text, text.index("{"), first_line=2)
    assert caught.value.line == 4


def test_stops_at_the_closing_brace_and_never_reads_the_code_after_it() -> None:
    text = "{a: 1}; const b = `${never_read}` + /regex/ + 'unterminated"
    parsed = parse_object_literal(text)
    assert parsed.value == {"a": 1}
    assert text[parsed.end :].startswith("; const b")


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("{\n  a: 1\n  b: 2\n}", 3, "expected `,` or `}`, found `b`"),
        ("{\n  a: 1,\n  a: 2,\n}", 3, "key 'a' is given twice (first on line 2)"),
        ("{\n  a: someVariable,\n}", 2, "`someVariable` is a name, not a value"),
        ("{\n  a: undefined\n}", 2, "`undefined` is not a JSON value"),
        ("{a: NaN}", 1, "`NaN` is not a JSON value"),
        ("{a: Infinity}", 1, "`Infinity` is not a JSON value"),
        ("{\n  a: {\n    b: 1,\n", 4, "the end of the text (a `}` or `]` is missing)"),
        ("{a: 'open\n}", 1, "a string is not closed before the end of its line"),
        ("{a: `x ${y}`}", 1, "a template string with `${...}` cannot be read without running it"),
        ("{\n  ...base,\n}", 2, "a spread (`...`) cannot be read"),
        ("{a: [1,,2]}", 1, "expected a value, found `,`"),
        ("{a 1}", 1, "expected `:` after the key 'a', found `1`"),
        ("{[key]: 1}", 1, "expected a key or `}`, found `[`"),
        ("{a: f(1)}", 1, "`f` is a name, not a value"),
        ("{a: 1 /* open", 1, "a `/*` comment is never closed with `*/`"),
        ("{a: 007}", 1, "a number may not start with 0: 007"),
        ("{a: '\\uZZZZ'}", 1, "invalid escape \\u in a string"),
        ("{a: '\\uD83D'}", 1, "is half of a character (a lone surrogate)"),
        ("{a: '\\u{41'}", 1, "invalid escape \\u in a string"),
        ("{a: 1 @}", 1, "unexpected character '@'"),
        ("[1, 2]", 1, "expected `{`, found `[`"),
        ("", 1, "expected `{`, found the end of the text"),
    ],
)
def test_errors_say_what_and_where(text: str, line: int, message: str) -> None:
    with pytest.raises(LiteralError) as caught:
        parse_object_literal(text)
    assert message in caught.value.message
    assert caught.value.line == line


def test_a_value_is_never_evaluated() -> None:
    failure = error("{a: require('child_process').execSync('touch /tmp/x')}")
    assert "`require` is a name, not a value" in failure.message
