"""Editing a JSON or JSONC file as data, and writing back only what changed.

`read_jsonc` gives a `JsoncDocument`: the file's object as plain dicts, to change like
any dict, which remembers the text it came from. `render_jsonc` writes the changes back
as edits of that text: a value that changed is replaced where it stands, a new member
goes after the object's last one. Everything else (comments, trailing commas, key order,
indentation, CRLF line ends, a byte order mark) stays as the user wrote it, character
for character; what is added follows the file's own indentation and comma style.
"""

from __future__ import annotations

import copy
import json
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from toolkiln.clients.jsonc import JsoncError, Object, Value, parse_jsonc

BOM = "\ufeff"


@dataclass(frozen=True)
class Source:
    text: str  # the file's text, without its byte order mark
    tree: Object | None  # None: the file holds only comments and space
    bom: bool


class JsoncDocument(dict[str, Any]):
    """The object a JSONC file holds, as a dict; `source` is the text it was read from."""

    def __init__(self, data: dict[str, Any], source: Source | None = None) -> None:
        super().__init__(data)
        self.source = source


def read_jsonc(text: str) -> JsoncDocument:
    """The document `text` holds: an object, or nothing yet (empty, or only comments).

    Raises `JsoncError` when it is not JSONC, or holds something other than an object.
    """
    bom = text.startswith(BOM)
    body = text.removeprefix(BOM)
    tree = parse_jsonc(body)
    if tree is None:
        return JsoncDocument({}, Source(body, None, bom) if body.strip() else None)
    if not isinstance(tree, Object):
        kind = type(tree.data).__name__
        raise JsoncError(f"holds a JSON {kind}, not an object; fix it by hand first", tree.start)
    return JsoncDocument(copy.deepcopy(tree.data), Source(body, tree, bom))


def render_jsonc(document: MutableMapping[str, Any]) -> str:
    """The text of `document`: its source's text with the changes made to it, or new JSON."""
    source: Source | None = getattr(document, "source", None)
    data = dict(document)
    if source is None:
        return _dump(data, "  ", "", "\n") + "\n"
    newline = "\r\n" if "\r\n" in source.text else "\n"
    if source.tree is None:  # only comments: they stay, the object goes after them
        text = source.text.rstrip() + newline + _dump(data, "  ", "", newline) + newline
    else:
        editor = _Editor(source.text, newline, _indent_unit(source.text, source.tree))
        editor.merge(source.tree, data)
        text = editor.apply()
    written = parse_jsonc(text)
    if written is None or written.data != data:  # a bug here must never reach the user's file
        raise RuntimeError("editing the JSONC text did not give the intended data")
    return (BOM if source.bom else "") + text


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    text: str


class _Editor:
    def __init__(self, text: str, newline: str, unit: str) -> None:
        self.text, self.newline, self.unit = text, newline, unit
        self.edits: list[_Edit] = []

    def merge(self, node: Object, new: dict[str, Any]) -> None:
        """Edits that make `node` hold `new`: changed members replaced, new ones added."""
        added: list[tuple[str, Any]] = []
        for key, value in new.items():
            member = node.member(key)
            if member is None:
                added.append((key, value))
            elif member.value.data != value:
                self.change(member.value, value, _leading(self.text, member.key_start))
        if added:
            self.add(node, added)

    def change(self, old: Value, value: Any, indent: str) -> None:
        """`old` made `value`: edited inside when it is an object laid out on lines of its
        own that keeps all its keys (so comments among its members stay), else replaced."""
        keeps_every_key = isinstance(value, dict) and set(old.data) <= set(value)
        on_lines = "\n" in self.text[old.start : old.end]
        if isinstance(old, Object) and keeps_every_key and on_lines:
            self.merge(old, value)
        else:
            self.edits.append(_Edit(old.start, old.end, _dump(value, self.unit, indent, self.newline)))

    def add(self, node: Object, added: list[tuple[str, Any]]) -> None:
        text, newline = self.text, self.newline
        close = node.end - 1
        indent = self.member_indent(node)
        members = [
            f"{indent}{json.dumps(key, ensure_ascii=False)}: {_dump(value, self.unit, indent, newline)}"
            for key, value in added
        ]
        body = ("," + newline).join(members) + ("," if node.trailing_comma else "")
        if node.members and not node.trailing_comma:
            last = node.members[-1].value.end
            self.edits.append(_Edit(last, last, ","))
        if _starts_line(text, close):  # `}` on a line of its own: the members go on lines before it
            line = _line_start(text, close)
            self.edits.append(_Edit(line, line, body + newline))
        else:  # `{}`, or `... }` on one line
            self.edits.append(_Edit(close, close, newline + body + newline + _leading(text, close)))

    def member_indent(self, node: Object) -> str:
        """The indentation of the object's members: as the first one on a line of its own has it."""
        for member in node.members:
            if _starts_line(self.text, member.key_start):
                return _leading(self.text, member.key_start)
        return _leading(self.text, node.end - 1) + self.unit

    def apply(self) -> str:
        text = self.text
        # From the end backwards, so that each edit's offsets still hold; of two inserts at
        # one offset the one made first ends up first.
        for _, edit in sorted(enumerate(self.edits), key=lambda pair: (pair[1].start, pair[0]), reverse=True):
            text = text[: edit.start] + edit.text + text[edit.end :]
        return text


def _dump(value: Any, unit: str, indent: str, newline: str) -> str:
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", newline + indent)


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _starts_line(text: str, offset: int) -> bool:
    return not text[_line_start(text, offset) : offset].strip(" \t")


def _leading(text: str, offset: int) -> str:
    """The indentation of the line that `offset` is on."""
    start = _line_start(text, offset)
    line = text[start:offset]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _indent_unit(text: str, root: Object) -> str:
    """One level of the file's indentation: as its first member on a line of its own has it."""
    for member in root.members:
        if _starts_line(text, member.key_start) and _leading(text, member.key_start):
            return _leading(text, member.key_start)
    return "  "
