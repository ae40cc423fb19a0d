"""A JSONC parser that keeps where each value is in the text.

JSONC is JSON (RFC 8259) with `//` and `/* */` comments and trailing commas: VS Code's
"JSON with Comments", the dialect of its settings and `mcp.json`, and of the other MCP
clients' files that people comment the same way. Strings and numbers are decoded by the
stdlib's `json`, so a value means what `json.loads` says it means; what this adds is the
comments, the trailing commas, and each value's offsets, so that an edit can change one
value and leave every other character of the file as it was (`jsonc_edit`).

Nothing beyond JSONC is accepted (no single quotes, bare keys, NaN): a file that its
client would refuse is refused here too, with its line and column.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

MAX_DEPTH = 200  # nesting deeper than any config file has; a bound on the recursion
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_SPACE = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # one string token, escapes and all
_LITERALS = (("true", True), ("false", False), ("null", None))


class JsoncError(ValueError):
    """The text is not JSONC; `offset` is where reading stopped."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset

    def locate(self, text: str) -> tuple[int, int]:
        """(line, column), both from 1, of the error in `text`."""
        line = text.count("\n", 0, self.offset) + 1
        column = self.offset - (text.rfind("\n", 0, self.offset) + 1) + 1
        return line, column


@dataclass
class Value:
    start: int  # the offset of its first character
    end: int  # the offset just past its last character
    data: Any  # as plain dicts, lists and scalars


@dataclass
class Member:
    key: str
    key_start: int  # the offset of the key's opening quote
    value: Value


@dataclass
class Object(Value):
    members: list[Member] = field(default_factory=list)
    trailing_comma: bool = False  # a comma after the last member

    def member(self, key: str) -> Member | None:
        """The member named `key`; the last one when the name repeats (it is the one that counts)."""
        return next((member for member in reversed(self.members) if member.key == key), None)


def parse_jsonc(text: str) -> Value | None:
    """The value that `text` holds, with its offsets; None when it holds only comments and space."""
    reader = _Reader(text)
    start = reader.skip(0)
    if start == len(text):
        return None
    value = reader.value(start, 0)
    end = reader.skip(value.end)
    if end != len(text):
        raise JsoncError(f"expected the end of the file after the value, found {reader.describe(end)}", end)
    return value


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text

    def describe(self, offset: int) -> str:
        return repr(self.text[offset]) if offset < len(self.text) else "the end of the file"

    def skip(self, offset: int) -> int:
        """The offset of the next token after whitespace and comments."""
        text = self.text
        while True:
            space = _SPACE.match(text, offset)
            offset = space.end() if space else offset
            if text.startswith("//", offset):
                newline = text.find("\n", offset)
                offset = len(text) if newline < 0 else newline + 1
            elif text.startswith("/*", offset):
                close = text.find("*/", offset + 2)
                if close < 0:
                    raise JsoncError("a /* comment is never closed with */", offset)
                offset = close + 2
            else:
                break
        return offset

    def value(self, offset: int, depth: int) -> Value:
        if depth > MAX_DEPTH:
            raise JsoncError(f"nested more than {MAX_DEPTH} deep", offset)
        char = self.text[offset : offset + 1]
        if char == "{":
            return self.object(offset, depth)
        if char == "[":
            return self.array(offset, depth)
        if char == '"':
            data, end = self.string(offset)
            return Value(offset, end, data)
        for word, literal in _LITERALS:
            if self.text.startswith(word, offset):
                return Value(offset, offset + len(word), literal)
        number = _NUMBER.match(self.text, offset)
        if number:
            fraction, exponent = number.groups()
            scalar = float(number.group()) if fraction or exponent else int(number.group())
            return Value(offset, number.end(), scalar)
        raise JsoncError(f"expected a value, found {self.describe(offset)}", offset)

    def string(self, offset: int) -> tuple[str, int]:
        """The string whose opening quote is at `offset`, decoded by `json`, and its end."""
        token = _STRING.match(self.text, offset)
        if token is None:
            raise JsoncError('a string is never closed with "', offset)
        try:
            decoded: str = json.loads(token.group())
        except json.JSONDecodeError as error:
            raise JsoncError(error.msg, offset + error.pos) from None
        return decoded, token.end()

    def object(self, start: int, depth: int) -> Object:
        node = Object(start, start, {})
        offset = self.skip(start + 1)
        while self.text[offset : offset + 1] != "}":
            if self.text[offset : offset + 1] != '"':
                found = self.describe(offset)
                raise JsoncError(f"expected a property name in double quotes or }}, found {found}", offset)
            key, after = self.string(offset)
            colon = self.skip(after)
            if self.text[colon : colon + 1] != ":":
                raise JsoncError(f"expected ':' after the property name, found {self.describe(colon)}", colon)
            value = self.value(self.skip(colon + 1), depth + 1)
            node.members.append(Member(key, offset, value))
            node.data[key] = value.data
            offset, comma = self.after_item(value.end, "}")
            node.trailing_comma = comma and self.text[offset : offset + 1] == "}"
        node.end = offset + 1
        return node

    def array(self, start: int, depth: int) -> Value:
        node = Value(start, start, [])
        offset = self.skip(start + 1)
        while self.text[offset : offset + 1] != "]":
            item = self.value(offset, depth + 1)
            node.data.append(item.data)
            offset, _ = self.after_item(item.end, "]")
        node.end = offset + 1
        return node

    def after_item(self, end: int, close: str) -> tuple[int, bool]:
        """After an item: the offset of the next item or of the closing bracket, and
        whether a comma came between (after the last item: a trailing comma)."""
        offset = self.skip(end)
        char = self.text[offset : offset + 1]
        if char == ",":
            return self.skip(offset + 1), True
        if char != close:
            raise JsoncError(f"expected ',' or {close!r}, found {self.describe(offset)}", offset)
        return offset, False
