"""Read a JavaScript object literal (or JSON, or a Python dict display) as data.

    {
      input: {
        title: { type: 'string', required: true },  // a comment
        count: { type: "number", min: 0, max: 1e3, }, /* trailing commas */
      },
    }

Keys may be bare identifiers, numbers or strings in single, double or back quotes
(a template string without `${...}`); values are strings, numbers (decimal, hex, with
`_` separators), `true`/`false`/`null` (also Python's `True`/`False`/`None`), arrays
and objects. Comments are `//`, `#` and `/* */`. Nothing is evaluated: a variable, a
call or a spread is an error that says where it is.

The tokenizer is lazy and stops at the brace that closes the literal, so whatever code
follows it is never looked at.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

# Where each value starts: () for the whole literal, ("input", "title") for a member
# (the line of its key), ("tags", 0) for an item of an array.
KeyPath = tuple[str | int, ...]

_WORDS: dict[str, Any] = {
    "true": True,
    "false": False,
    "null": None,
    "True": True,
    "False": False,
    "None": None,
}
_NOT_JSON_WORDS = {"undefined", "NaN", "Infinity"}
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_NUMBER = re.compile(
    r"[+-]?(?:0[xX][0-9a-fA-F](?:_?[0-9a-fA-F])*"
    r"|(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?)"
)
_PUNCTUATION = "{}[]:,"
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "0": "\0"}


class LiteralError(ValueError):
    """The text is not an object literal; `line` says where (1 is the first line given)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass(frozen=True)
class _Token:
    kind: str  # one of _PUNCTUATION, or "string", "number", "word", "end"
    value: Any
    line: int


@dataclass
class ObjectLiteral:
    """A parsed literal: its value, where each part of it starts, and where it ends."""

    value: dict[str, Any]
    lines: dict[KeyPath, int] = field(default_factory=dict)
    end: int = 0  # offset in the text just after the closing brace

    def line_of(self, path: KeyPath) -> int:
        """The line of `path`, or of its nearest ancestor that has one."""
        while path not in self.lines:
            path = path[:-1]
        return self.lines[path]


def parse_object_literal(text: str, start: int = 0, first_line: int = 1) -> ObjectLiteral:
    """Parse the object literal that starts at `text[start]` (a `{`).

    `first_line` is the line number of `text[start]`, for the lines in the result and
    in a `LiteralError`.
    """
    parser = _Parser(_tokens(text, start, first_line))
    result = ObjectLiteral(value={})
    token = parser.next()
    if token.kind != "{":
        raise LiteralError(f"expected `{{`, found {_describe(token)}", token.line)
    result.lines[()] = token.line
    result.value = parser.object_body((), result.lines)
    result.end = parser.end
    return result


class _Parser:
    def __init__(self, tokens: Iterator[tuple[_Token, int]]) -> None:
        self._tokens = tokens
        self._peeked: tuple[_Token, int] | None = None
        self.end = 0

    def next(self) -> _Token:
        token, self.end = self._peeked or next(self._tokens)
        self._peeked = None
        return token

    def peek(self) -> _Token:
        if self._peeked is None:
            self._peeked = next(self._tokens)
        return self._peeked[0]

    def value(self, path: KeyPath, lines: dict[KeyPath, int]) -> Any:
        token = self.next()
        if token.kind == "{":
            return self.object_body(path, lines)
        if token.kind == "[":
            return self.array_body(path, lines)
        if token.kind in ("string", "number"):
            return token.value
        if token.kind == "word":
            if token.value in _WORDS:
                return _WORDS[token.value]
            if token.value in _NOT_JSON_WORDS:
                raise LiteralError(f"`{token.value}` is not a JSON value", token.line)
            raise LiteralError(
                f"`{token.value}` is a name, not a value: the schema is read as text, never run, "
                "so values must be literals (strings, numbers, true, false, null, arrays, objects)",
                token.line,
            )
        raise LiteralError(f"expected a value, found {_describe(token)}", token.line)

    def object_body(self, path: KeyPath, lines: dict[KeyPath, int]) -> dict[str, Any]:
        members: dict[str, Any] = {}
        while True:
            token = self.next()
            if token.kind == "}":
                return members
            if token.kind not in ("string", "word", "number"):
                raise LiteralError(f"expected a key or `}}`, found {_describe(token)}", token.line)
            key = token.value if isinstance(token.value, str) else _number_key(token.value)
            if key in members:
                raise LiteralError(
                    f"key {key!r} is given twice (first on line {lines[(*path, key)]})", token.line
                )
            colon = self.next()
            if colon.kind != ":":
                raise LiteralError(
                    f"expected `:` after the key {key!r}, found {_describe(colon)}", colon.line
                )
            lines[(*path, key)] = token.line
            members[key] = self.value((*path, key), lines)
            if not self._separator("}"):
                return members

    def array_body(self, path: KeyPath, lines: dict[KeyPath, int]) -> list[Any]:
        items: list[Any] = []
        while True:
            if self.peek().kind == "]":
                self.next()
                return items
            lines[(*path, len(items))] = self.peek().line
            items.append(self.value((*path, len(items)), lines))
            if not self._separator("]"):
                return items

    def _separator(self, closing: str) -> bool:
        """After a member or item: True when a `,` leads to another, False at the end."""
        token = self.next()
        if token.kind == ",":
            return True
        if token.kind == closing:
            return False
        raise LiteralError(f"expected `,` or `{closing}`, found {_describe(token)}", token.line)


def _number_key(value: int | float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _describe(token: _Token) -> str:
    if token.kind == "end":
        return "the end of the text (a `}` or `]` is missing)"
    if token.kind == "string":
        return f"the string {token.value!r}"
    if token.kind in ("word", "number"):
        return f"`{token.value}`"
    return f"`{token.kind}`"


def _tokens(text: str, index: int, line: int) -> Iterator[tuple[_Token, int]]:
    """Tokens with the offset just after each; a last "end" token at the end of the text."""
    length = len(text)
    while True:
        while index < length and text[index] in " \t\r\n\f\v\ufeff\u00a0":
            line += text[index] == "\n"
            index += 1
        if index >= length:
            yield _Token("end", None, line), index
            return
        char = text[index]
        if text.startswith("//", index) or char == "#":
            newline = text.find("\n", index)
            index = length if newline < 0 else newline
        elif text.startswith("/*", index):
            close = text.find("*/", index + 2)
            if close < 0:
                raise LiteralError("a `/*` comment is never closed with `*/`", line)
            line += text.count("\n", index, close)
            index = close + 2
        elif char in _PUNCTUATION:
            index += 1
            yield _Token(char, char, line), index
        elif char in "'\"`":
            value, end = _string(text, index, line)
            yield _Token("string", value, line), end
            line += text.count("\n", index, end)
            index = end
        elif number := _NUMBER.match(text, index):
            yield _Token("number", _number(number.group(), line), line), number.end()
            index = number.end()
        elif word := _IDENTIFIER.match(text, index):
            yield _Token("word", word.group(), line), word.end()
            index = word.end()
        elif text.startswith("...", index):
            raise LiteralError("a spread (`...`) cannot be read without running the script", line)
        else:
            raise LiteralError(f"unexpected character {char!r}", line)


def _number(text: str, line: int) -> int | float:
    digits = text.replace("_", "")
    sign = -1 if digits.startswith("-") else 1
    digits = digits.lstrip("+-")
    if digits[:2].lower() == "0x":
        return sign * int(digits, 16)
    if re.fullmatch(r"0\d+", digits):
        raise LiteralError(f"a number may not start with 0: {text}", line)
    if re.fullmatch(r"\d+", digits):
        return sign * int(digits)
    value = float(digits)
    # JavaScript has one kind of number: 2.0 and 1e3 are the integers 2 and 1000.
    return sign * int(value) if value.is_integer() and value < 2**53 else sign * value


def _string(text: str, start: int, line: int) -> tuple[str, int]:
    """The string whose opening quote is at `start`, and the offset after its closing quote."""
    quote = text[start]
    parts: list[str] = []
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == quote:
            return "".join(parts), index + 1
        if char == "\n" and quote != "`":
            raise LiteralError("a string is not closed before the end of its line", line)
        if quote == "`" and text.startswith("${", index):
            raise LiteralError("a template string with `${...}` cannot be read without running it", line)
        if char == "\\":
            escaped, index = _escape(text, index + 1, line)
            parts.append(escaped)
            continue
        line += char == "\n"
        parts.append(char)
        index += 1
    raise LiteralError("a string is not closed before the end of the text", line)


def _escape(text: str, index: int, line: int) -> tuple[str, int]:
    """The character that the escape after a backslash stands for, and where it ends."""
    if index >= len(text):
        raise LiteralError("a string ends with a lone backslash", line)
    char = text[index]
    if char == "\n":  # a line continuation
        return "", index + 1
    if char in _ESCAPES and not (char == "0" and text[index + 1 : index + 2].isdigit()):
        return _ESCAPES[char], index + 1
    if char in "xu":
        if char == "u" and text.startswith("{", index + 1):
            close = text.find("}", index + 2, index + 10)
            digits, end = (text[index + 2 : close], close + 1) if close > 0 else ("", index)
        else:
            width = 2 if char == "x" else 4
            digits, end = text[index + 1 : index + 1 + width], index + 1 + width
            if len(digits) != width:
                digits = ""
        if not re.fullmatch(r"[0-9a-fA-F]{1,6}", digits or "") or int(digits, 16) > 0x10FFFF:
            raise LiteralError(f"invalid escape \\{char} in a string", line)
        code = int(digits, 16)
        if 0xD800 <= code <= 0xDFFF:  # half of a UTF-16 pair: only a whole pair is a character
            low = text[end + 2 : end + 6] if text.startswith("\\u", end) else ""
            if code > 0xDBFF or not re.fullmatch(r"[dD][c-fC-F][0-9a-fA-F]{2}", low):
                raise LiteralError(f"\\u{digits} is half of a character (a lone surrogate)", line)
            return chr(0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)), end + 6
        return chr(code), end
    return char, index + 1  # \' \" \\ \/ and any other character stand for themselves
