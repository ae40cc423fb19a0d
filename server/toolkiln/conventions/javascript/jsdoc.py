"""Read JSDoc comments (`/** ... */`) as data: a description and tags with their
types, names and text. Only what tools declare with: `@typedef`, `@property`/`@prop`,
`@param`/`@arg`/`@argument`, `@description`; read as text, never run.

    /**
     * Search the web.
     * @typedef {Object} Args
     * @property {string} query - What to look for
     * @property {number} [limit=5] - How many results
     * @property {'web'|'news'} kind
     * @param {Args} args
     */
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from toolkiln.vocabulary import ParamType

_TAG = re.compile(r"^@(\w+)\s*(.*)$", re.DOTALL)
_SIMPLE_TYPES: dict[str, ParamType] = {
    "string": "string", "number": "number", "integer": "integer", "int": "integer", "bigint": "integer",
    "boolean": "boolean", "bool": "boolean", "object": "object", "array": "array", "*": "any",
    "any": "any", "unknown": "any", "record": "object", "map": "object",
}  # fmt: skip
_ARRAY = re.compile(r"^(?:(?P<item>.+)\[\]|array\.?<(?P<generic>.+)>)$", re.IGNORECASE)
_QUOTED = re.compile(r"""^(?:'([^']*)'|"([^"]*)"|`([^`$]*)`)$""")
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")


@dataclass(frozen=True)
class Tag:
    """One tag: `@property {string} [name=x] text` -> name "property", type "string", ..."""

    name: str
    type: str
    target: str  # the name the tag is about, without brackets or default
    optional: bool
    default: str | None
    text: str
    line: int


@dataclass(frozen=True)
class Block:
    description: str
    tags: list[Tag] = field(default_factory=list)
    start: int = 0  # offsets of the comment in the text
    end: int = 0
    line: int = 1


@dataclass(frozen=True)
class JsType:
    """What a JSDoc type means as a parameter type."""

    type: ParamType
    items: ParamType | None = None
    enum: list[Any] | None = None
    optional: bool = False  # `?T`, `T=`, `T|undefined`, `T|null`
    known: bool = True  # False: a type name toolkiln cannot read (read as any)


def read_blocks(text: str) -> list[Block]:
    """Every JSDoc block of `text` (`/** ... */`, not `/**/`), in order: one pass, where a
    pattern tried from each `/**` would read to the end of the text from each."""
    blocks, at, line, counted = [], 0, 1, 0
    while (start := text.find("/**", at)) >= 0:
        if text.startswith("/", start + 3):
            at = start + 1
            continue
        end = text.find("*/", start + 3)
        if end < 0:
            break
        line += text.count("\n", counted, start)
        counted = start
        blocks.append(_read_block(text, start, end, line))
        at = end + 2
    return blocks


def _read_block(text: str, start: int, end: int, first_line: int) -> Block:
    description: list[str] = []
    pieces: list[tuple[list[str], int]] = []  # each tag's lines, with its line
    for offset, raw in enumerate(text[start + 3 : end].split("\n")):
        line = re.sub(r"^\s*\*? ?", "", raw).rstrip()
        if line.lstrip().startswith("@"):
            pieces.append(([line.strip()], first_line + offset))
        elif pieces:
            pieces[-1][0].append(line.strip())
        else:
            description.append(line)
    tags = [tag for lines, line_ in pieces if (tag := _read_tag("\n".join(lines), line_))]
    extra = [tag.text for tag in tags if tag.name in ("description", "desc", "summary")]
    summary = "\n".join(description).strip() or "\n".join(extra).strip()
    return Block(summary, tags, start, end + 2, first_line)


def _read_tag(text: str, line: int) -> Tag | None:
    match = _TAG.match(text)
    if match is None:
        return None
    name, rest = match.group(1).lower(), match.group(2).strip()
    name = {"prop": "property", "arg": "param", "argument": "param"}.get(name, name)
    type_text = ""
    if rest.startswith("{"):
        type_text, rest = _braced(rest)
    if name in ("description", "desc", "summary", "returns", "return"):
        return Tag(name, type_text, "", False, None, " ".join(rest.split()), line)
    target, optional, default = "", False, None
    if rest.startswith("["):
        close = _closing_bracket(rest)
        inner, rest = rest[1:close], rest[close + 1 :]
        target, _, default_text = inner.partition("=")
        target, optional, default = target.strip(), True, (default_text.strip() or None)
    else:
        target, rest = [*re.split(r"\s+", rest, maxsplit=1), ""][:2]
    described = re.sub(r"^\s*-\s*", "", rest.strip())
    return Tag(name, type_text, target.strip(), optional, default, " ".join(described.split()), line)


def _braced(text: str) -> tuple[str, str]:
    """`{Array<{a: 1}>} rest` -> ("Array<{a: 1}>", "rest"); an unclosed brace takes the line."""
    depth = 0
    for index, char in enumerate(text):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0:
            return text[1:index].strip(), text[index + 1 :].strip()
    return text[1:].strip(), ""


def _closing_bracket(text: str) -> int:
    depth = 0
    for index, char in enumerate(text):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth == 0:
            return index
    return len(text) - 1


def read_type(text: str, typedefs: frozenset[str] = frozenset()) -> JsType:
    """A JSDoc type as a parameter type: `string`, `number[]`, `'a'|'b'`, `?string`,
    `string=`, `Array<string>`, `Object`; a typedef's name is an object."""
    text = text.strip()
    optional = False
    if text.endswith("="):
        text, optional = text[:-1].strip(), True
    if text.startswith("?"):
        text, optional = text[1:].strip(), True
    if text.startswith("!"):
        text = text[1:].strip()
    while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1].strip()
    members = _split_union(text)
    kept = [member for member in members if member.lower() not in ("null", "undefined", "void")]
    optional = optional or len(kept) < len(members)
    if len(kept) > 1:
        values = [_literal_value(member) for member in kept]
        if all(value is not _NOT_LITERAL for value in values):
            kinds = {type(value) for value in values}
            param_type: ParamType = "string" if kinds == {str} else "integer" if kinds == {int} else "number"
            if kinds <= {str} or kinds <= {int, float}:
                return JsType(param_type, enum=values, optional=optional)
        return JsType("any", optional=optional)
    text = kept[0] if kept else "any"
    if (value := _literal_value(text)) is not _NOT_LITERAL:
        return JsType("string" if isinstance(value, str) else "number", enum=[value], optional=optional)
    if array := _ARRAY.match(text):
        item = read_type(array.group("item") or array.group("generic"), typedefs)
        items = item.type if item.known and item.type not in ("any", "array") and not item.enum else None
        return JsType("array", items=items, optional=optional)
    lowered = text.lower()
    if lowered in _SIMPLE_TYPES:
        return JsType(_SIMPLE_TYPES[lowered], optional=optional)
    if (
        text.startswith("{")
        or lowered.startswith(("record<", "object<", "object.<", "map<"))
        or text in typedefs
    ):
        return JsType("object", optional=optional)
    return JsType("any", optional=optional, known=False)


_NOT_LITERAL = object()


def _literal_value(text: str) -> Any:
    quoted = _QUOTED.match(text.strip())
    if quoted:
        return next(group for group in quoted.groups() if group is not None)
    if _NUMBER.match(text.strip()):
        return json.loads(text.strip())
    return _NOT_LITERAL


def read_default(text: str, param_type: ParamType) -> Any:
    """`[limit=5]` -> 5; `[name='x']` -> "x"; a bare word is a string for a string parameter."""
    quoted = _literal_value(text)
    if isinstance(quoted, str):
        return quoted
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if param_type == "string" and not isinstance(value, str):
        return text
    return value


def _split_union(text: str) -> list[str]:
    parts, depth, quote, current = [], 0, "", ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"`":
            quote = char
        elif char in "([{<":
            depth += 1
        elif char in ")]}>":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        current += char
    parts.append(current.strip())
    return [part for part in parts if part]


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0
