"""The annotations dialect (seeds/003): a script whose header comments declare it.

    #!/bin/bash
    # Tool: pwod
    # Description: Password of the Day
    # @param function: The function to run (type: string, required: true, enum: generate|verify)
    # @param length: Password length (type: integer, default: 16, min: 8, max: 64)

The header is the comment block at the top of the file; it is read as text and
never executed. The grammar of the options in parentheses is documented in
docs/dialects.md.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from toolkiln.conventions.base import Candidate, Declaration, Probe, make_parameter
from toolkiln.conventions.naming import ENTRY_POINT
from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import PARAM_TYPES, ParamType

if TYPE_CHECKING:
    from toolkiln.model import Parameter

# (`(?:.*\S)?\s*$`, not `(.*?)\s*$`, which tried a long run of blanks again at each character)
_FIELD = re.compile(r"^#\s*(Tool|Description|Title|Version)\s*:\s*+((?:.*\S)?)\s*$", re.IGNORECASE)
_PARAM = re.compile(r"^#\s*@param\b\s*(.*)$", re.IGNORECASE)
_PARAM_HEAD = re.compile(r"^(?P<name>[^\s:]+)\s*:\s*(?P<rest>.*)$")
_OPTION = re.compile(r"^\s*(?P<key>[A-Za-z_]+)\s*:\s*+(?P<value>(?:.*\S)?)\s*$", re.DOTALL)
_STRAY_OPTIONS = re.compile(r"\(\s*(type|required|default)\s*:", re.IGNORECASE)
_MARKERS = re.compile(r"^#\s*(Tool\s*:|@param\b)", re.MULTILINE | re.IGNORECASE)

TYPE_ALIASES: dict[str, ParamType] = {
    "str": "string", "text": "string", "int": "integer", "float": "number", "double": "number",
    "bool": "boolean", "list": "array", "dict": "object", "json": "any",
}  # fmt: skip
OPTION_KEYS = (
    "type",
    "required",
    "default",
    "enum",
    "examples",
    "min",
    "max",
    "items",
    "secret",
    "header",
    "multiline",
)
_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}


CLAIM_IS_CERTAIN = True


def claims(candidate: Candidate) -> bool:
    """An executable script (or any run.sh) whose header has a `# Tool:` or `# @param` line.

    A README that happens to start with `# Tool:` is not executable, so not a tool; a
    run.sh is always meant as one, so a missing exec bit is reported, not ignored.
    """
    if not (candidate.executable or candidate.path.name == ENTRY_POINT):
        return False
    return bool(_MARKERS.search(header_text(candidate.head)))


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    if not candidate.executable:
        raise DiscoveryError(
            f"is not executable; run: chmod +x {candidate.path}", path=candidate.relative_path
        )
    return [parse_header(candidate.head, candidate.relative_path)]


def header_text(text: str) -> str:
    """The leading comment block (shebang and blank lines included)."""
    lines = []
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            break
        lines.append(line)
    return "\n".join(lines)


def parse_header(text: str, path: str) -> Declaration:
    """Read the declaration from a script's header; `path` is only used in errors."""
    fields: dict[str, str] = {}
    parameters: list[Parameter] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(header_text(text).splitlines(), start=1):
        line = raw.strip()
        if match := _FIELD.match(line):
            fields.setdefault(match.group(1).lower(), match.group(2))
        elif match := _PARAM.match(line):
            param = parse_param_line(match.group(1), path, number)
            if param.name in seen:
                raise DiscoveryError(
                    f"parameter {param.name!r} is already declared on line {seen[param.name]}",
                    path=path,
                    line=number,
                )
            seen[param.name] = number
            parameters.append(param)
    return Declaration(
        dialect="annotations",
        description=fields.get("description", ""),
        parameters=parameters,
        title=fields.get("title") or None,
        version=fields.get("version") or None,
    )


def parse_param_line(text: str, path: str, line: int) -> Parameter:
    """`name: description (type: T, required: B, default: V, ...)` -> Parameter."""
    head = _PARAM_HEAD.match(text.strip())
    if not head:
        raise DiscoveryError(
            "expected `# @param name: description (type: T, required: true|false, default: V)`",
            path=path,
            line=line,
        )
    description, options_text = _split_options(head.group("rest"))
    if options_text is None and _STRAY_OPTIONS.search(description):
        raise DiscoveryError(
            "the options must close the line, in one pair of parentheses: `(type: T, required: B, ...)`",
            path=path,
            line=line,
        )
    options = _parse_options(options_text, path, line) if options_text is not None else {}
    param_type = _parse_type(options.pop("type", "string"), path, line)
    kind = "path" if param_type == "path" else None
    if param_type in ("enum", "path"):
        if param_type == "enum" and "enum" not in options:
            raise DiscoveryError("type enum needs its values: `enum: a|b|c`", path=path, line=line)
        param_type = "string"
    fields: dict[str, Any] = {"name": head.group("name"), "type": param_type, "description": description}
    if kind:
        fields["kind"] = kind
    for flag in ("required", "secret", "multiline"):
        if flag in options:
            fields[flag] = _parse_bool(options.pop(flag), flag, path, line)
    if "items" in options:
        fields["items"] = _parse_type(options.pop("items"), path, line)
    if "header" in options:
        fields["header"] = options.pop("header")
    for listed in ("enum", "examples"):
        if listed in options:
            fields[listed] = [
                _parse_value(v, param_type, listed, path, line) for v in _split_enum(options.pop(listed))
            ]
    for bound in ("min", "max"):
        if bound in options:
            fields[bound] = _parse_value(options.pop(bound), "number", bound, path, line)
    if "default" in options and not fields.get("required"):
        fields["default"] = _parse_value(options.pop("default"), param_type, "default", path, line)
    return make_parameter(path, line, **fields)


def _split_options(rest: str) -> tuple[str, str | None]:
    """Split `description (options)` at the last parenthesised group that holds options."""
    rest = rest.strip()
    if not rest.endswith(")"):
        return rest, None
    depth = 0
    quote = ""
    for index in range(len(rest) - 1, -1, -1):
        char = rest[index]
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'" and _closes_quote(rest, index):
            quote = char
        elif char == ")":
            depth += 1
        elif char == "(":
            depth -= 1
            if depth == 0:
                inside = rest[index + 1 : -1]
                if _OPTION.match(inside.split(",", 1)[0]):
                    return rest[:index].strip(), inside
                return rest, None
    return rest, None


def _parse_options(text: str, path: str, line: int) -> dict[str, str]:
    options: dict[str, str] = {}
    for item in _split_top_level(text):
        if not item.strip():
            continue
        match = _OPTION.match(item)
        if not match:
            raise DiscoveryError(
                f"expected `key: value` in the options, got {item.strip()!r}", path=path, line=line
            )
        key = match.group("key").lower()
        key = "enum" if key == "values" else key
        if key not in OPTION_KEYS:
            raise DiscoveryError(
                f"unknown option {key!r} (known options: {', '.join(OPTION_KEYS)})", path=path, line=line
            )
        if key in options:
            raise DiscoveryError(f"option {key!r} is given twice", path=path, line=line)
        options[key] = match.group("value")
    return options


def _split_top_level(text: str) -> list[str]:
    """Split at commas that are not inside quotes, brackets or braces."""
    items: list[str] = []
    depth = 0
    quote = ""
    start = 0
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'" and _opens_quote(text, index):
            quote = char
        elif char in "[{(":
            depth += 1
        elif char in "]})":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(text[start:index])
            start = index + 1
    items.append(text[start:])
    return items


# A quote starts a quoted value only where a value starts, so that the apostrophe of a
# bare `default: Bob's report` is just a character.
def _opens_quote(text: str, index: int) -> bool:
    before = text[:index].rstrip()
    return not before or before[-1] in ":,[{(|"


def _closes_quote(text: str, index: int) -> bool:
    after = text[index + 1 :].lstrip()
    return not after or after[0] in ":,)]}|"


def _parse_type(text: str, path: str, line: int) -> Any:
    name = text.strip().lower()
    name = TYPE_ALIASES.get(name, name)
    if name not in (*PARAM_TYPES, "enum", "path"):
        raise DiscoveryError(
            f"unknown type {text.strip()!r} (known types: {', '.join(PARAM_TYPES)}, enum, path)",
            path=path,
            line=line,
        )
    return name


def _parse_bool(text: str, key: str, path: str, line: int) -> bool:
    word = text.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise DiscoveryError(f"{key} must be true or false, not {text.strip()!r}", path=path, line=line)


def _split_enum(text: str) -> list[str]:
    text = text.strip()
    if not text:
        return []  # `enum:` with nothing after it: an error, not an enum of ""
    if text.startswith("["):
        try:
            values = json.loads(text)
        except json.JSONDecodeError:
            values = None
        if isinstance(values, list):
            return [v if isinstance(v, str) else json.dumps(v) for v in values]
    return [value.strip() for value in text.split("|")]


def _parse_value(text: str, param_type: str, key: str, path: str, line: int) -> Any:
    """A literal in the header, read as `param_type` (strings may be quoted or bare)."""
    text = text.strip()
    if param_type == "string":
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            return text[1:-1]
        return text
    if param_type == "boolean":
        return _parse_bool(text, key, path, line)
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        if param_type == "any":
            return text
        raise DiscoveryError(f"{key} {text!r} is not a valid {param_type}", path=path, line=line) from None
    return value
