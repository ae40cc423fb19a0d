"""The parameters of a Script Kit `// mcp:` script, read as text, never run.

    const name = await arg("What's your name?")                  -> name (required string)
    const color = await arg({ placeholder: "Color", choices: ["red", "blue"] })
                                                                  -> color (enum red|blue)
    const { city, days } = await params({ city: "The city", days: 3 })
                                                                  -> city (required), days (default 3)

Each `arg(...)` call, in the order written, is one required string parameter: named, as
Script Kit names it, after the variable it is assigned to (`arg1`, `arg2`, ... when none;
from the placeholder when that gives a better name), described by its placeholder, an
enum when its choices are a literal list. The values reach the script's `arg()` calls in
that order (runtimes/scriptkit). A `params({...})` (or the older `tool({ inputSchema })`)
object literal declares the input instead: a JSON Schema (`properties`, `required`) or
Script Kit's short form (`name: "description"`, `count: 3`, `{ type: ... }`). An arg()
that may run several times or not at all (in a loop, a callback of `.map()`, a branch)
has no fixed place: the script is an error that says so, never a tool with a parameter
too few.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from toolkiln.discover.base import make_parameter
from toolkiln.discover.object_literal import LiteralError, parse_object_literal
from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import PARAM_TYPES

if TYPE_CHECKING:
    from toolkiln.model import Parameter

_ARG_CALL = re.compile(r"(?<![\w$.])arg\s*\(")
_PARAMS_CALL = re.compile(r"(?<![\w$.])(?P<call>params|tool)\s*(?:<[^>()]*>)?\s*\(")
_ASSIGNED = re.compile(
    r"(?:\b(?:const|let|var)\s+)?(?P<name>[A-Za-z_$][\w$]*)\s*(?::[^=;]*)?=\s*[(\s]*(?:await\s*)?[(\s]*$"
)
_LOOP_HEADER = re.compile(r"\b(?:for|while)\s*$|\bdo\s*$")
_BRANCH_HEADER = re.compile(r"\b(?:if|switch|catch)\s*$|\b(?:else|case\b[^:]*:|default\s*:)\s*$")
_LOOP_CALLS = re.compile(
    r"\.(?:map|forEach|flatMap|filter|reduce|reduceRight|some|every|find|findIndex|sort)\s*$"
    r"|\b(?:setInterval|setTimeout)\s*$"
)
_CONDITIONAL = re.compile(r"\?(?![.?])|&&|\|\||\?\?")
_NOT_NAME = re.compile(r"[^a-z0-9]+")
_AS_CONST = re.compile(r"\s+as\s+[\w.<>\[\]\s]+$")
_JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object"}


def code_mask(text: str) -> str:
    """`text` with the insides of its comments and strings blanked (newlines kept), so
    that calls and braces can be found without being fooled by them."""
    chars = list(text)
    index, length = 0, len(text)

    def blank(start: int, end: int) -> None:
        for at in range(start, min(end, length)):
            if chars[at] != "\n":
                chars[at] = " "

    while index < length:
        if text.startswith("//", index):
            end = text.find("\n", index)
            end = length if end < 0 else end
            blank(index, end)
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            end = length if end < 0 else end + 2
            blank(index, end)
        elif text[index] in "'\"`":
            quote, end = text[index], index + 1
            while end < length and text[end] != quote and (quote == "`" or text[end] != "\n"):
                end += 2 if text[end] == "\\" else 1
            blank(index + 1, end)
            end += 1
        else:
            end = index + 1
        index = end
    return "".join(chars)


def arg_parameters(text: str, path: str) -> list[Parameter]:
    """One required string parameter per `arg(...)` call, in order."""
    mask = code_mask(text)
    parameters: list[Parameter] = []
    names: set[str] = set()
    for number, call in enumerate(_ARG_CALL.finditer(mask), start=1):
        line = text.count("\n", 0, call.start()) + 1
        problem = _unfixed_place(mask, call.start())
        if problem:
            raise DiscoveryError(
                f"arg() {problem}, so which value it takes cannot be known without running "
                "the script; give each value its own arg() call, or declare the input with "
                "params({...})",
                path=path,
                line=line,
            )
        arguments = _call_arguments(text, mask, call.end() - 1)
        placeholder, choices = _placeholder_and_choices(arguments)
        name = _unique(_parameter_name(mask, call.start(), placeholder, number), names)
        # option "": a positional argument, in order (the runtime hands them to arg() so)
        fields: dict[str, Any] = {"name": name, "type": "string", "required": True, "option": ""}
        fields["description"] = placeholder or ""
        if choices:
            fields["enum"] = choices
        parameters.append(make_parameter(path, line, **fields))
    return parameters


def params_call(text: str) -> re.Match[str] | None:
    """The script's first `params(` or `tool(` call, outside comments and strings."""
    return _PARAMS_CALL.search(code_mask(text))


def params_parameters(text: str, call: re.Match[str], path: str) -> list[Parameter]:
    """The parameters of a `params({...})` schema (or `tool({ inputSchema })`)."""
    line = text.count("\n", 0, call.start()) + 1
    what = f"{call.group('call')}(...)"
    arguments = _call_arguments(text, code_mask(text), call.end() - 1)
    schema = arguments[0] if arguments else None
    if call.group("call") == "tool" and isinstance(schema, dict):
        schema = schema.get("inputSchema", schema.get("parameters"))
    if not isinstance(schema, dict):
        raise DiscoveryError(
            f"the schema of {what} is not a plain object literal, so it cannot be read without "
            "running the script; write it in the call as { name: { type: ... }, ... }",
            path=path,
            line=line,
        )
    if isinstance(schema.get("properties"), dict):
        required = schema.get("required") or []
        specs = {name: (spec, name in required) for name, spec in schema["properties"].items()}
    else:
        specs = {name: _short_form(value) for name, value in schema.items()}
    return [_schema_parameter(name, spec, required, path, line) for name, (spec, required) in specs.items()]


def _short_form(value: Any) -> tuple[Any, bool]:
    """Script Kit's short schema: a string is a required string it describes; a number,
    boolean or list is the default of an input of its type; an object is the schema."""
    if isinstance(value, str):
        return {"type": "string", "description": value}, True
    if isinstance(value, bool):
        return {"type": "boolean", "default": value}, False
    if isinstance(value, int | float):
        return {"type": "number", "default": value}, False
    if isinstance(value, list):
        return {"type": "array", "default": value}, False
    if isinstance(value, dict):
        return value, bool(value.get("required", "default" not in value))
    return {"type": "string"}, True


def _schema_parameter(name: str, spec: Any, required: bool, path: str, line: int) -> Parameter:
    spec = spec if isinstance(spec, dict) else {}
    raw_type = spec.get("type")
    fields: dict[str, Any] = {"name": name, "required": required}
    fields["type"] = raw_type if raw_type in _JSON_TYPES else ("string" if raw_type is None else "any")
    if isinstance(spec.get("description"), str):
        fields["description"] = spec["description"]
    if isinstance(spec.get("enum"), list) and spec["enum"]:
        fields["enum"] = spec["enum"]
    items = spec.get("items")
    item_type = items.get("type") if isinstance(items, dict) else items
    if fields["type"] == "array" and item_type in PARAM_TYPES:
        fields["items"] = item_type
    for bound, keys in (
        ("min", ("minimum", "minLength", "minItems", "min")),
        ("max", ("maximum", "maxLength", "maxItems", "max")),
    ):
        found = next((spec[key] for key in keys if isinstance(spec.get(key), int | float)), None)
        if found is not None and not isinstance(found, bool):
            fields[bound] = found
    if "default" in spec and not required:
        fields["default"] = spec["default"]
    try:
        return make_parameter(path, line, **fields)
    except DiscoveryError as error:
        raise DiscoveryError(f"input {name!r}: {error.reason}", path=path, line=line) from None


def _unfixed_place(mask: str, at: int) -> str | None:
    """Why the call at `at` may run other than once (in a loop, a callback, a branch), or None."""
    openers: list[int] = []
    for index, char in enumerate(mask[:at]):
        if char in "({[":
            openers.append(index)
        elif char in ")}]" and openers:
            openers.pop()
    for opener in openers:
        before = mask[:opener].rstrip()
        if mask[opener] == "(":
            if _LOOP_CALLS.search(before):
                return "is called in a callback that may run several times (.map(), .forEach(), ...)"
            continue
        if mask[opener] != "{":
            continue
        header = _block_header(mask, before)
        if _LOOP_HEADER.search(header):
            return "is called in a loop"
        if _BRANCH_HEADER.search(header):
            return "is called only on some paths (in an if, else, switch or catch block)"
    line_start = mask.rfind("\n", 0, at) + 1
    statement = mask[max(line_start, mask.rfind(";", 0, at) + 1, mask.rfind("{", 0, at) + 1) : at]
    if _CONDITIONAL.search(statement):
        return "is called only on some paths (after ?, &&, || or ??)"
    return None


def _block_header(mask: str, before: str) -> str:
    """What opens a `{` block: `for`, `if`, `else`, ... (its `(...)` skipped), or the text."""
    if not before.endswith(")"):
        return before
    depth = 0
    for index in range(len(before) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(before[index], 0)
        if depth == 0:
            return before[:index].rstrip()
    return before


def _call_arguments(text: str, mask: str, opening: int) -> list[Any]:
    """The literal arguments of the call whose `(` is at `opening`; None for one that is not
    a literal (a variable, a call, a template with `${...}`)."""
    segments: list[tuple[int, int]] = []
    depth, start = 0, opening + 1
    for index in range(opening, len(mask)):
        char = mask[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                segments.append((start, index))
                break
        elif char == "," and depth == 1:
            segments.append((start, index))
            start = index + 1
    values = []
    for begin, end in segments:
        source = _AS_CONST.sub("", text[begin:end].strip())
        if not source:
            continue
        try:
            values.append(parse_object_literal("{v:" + source + "\n}").value["v"])
        except LiteralError:
            values.append(None)
    return values


def _placeholder_and_choices(arguments: list[Any]) -> tuple[str | None, list[Any] | None]:
    """arg("placeholder", choices) or arg({ placeholder, choices }, choices)."""
    first = arguments[0] if arguments else None
    config = first if isinstance(first, dict) else {}
    placeholder = first if isinstance(first, str) else config.get("placeholder")
    choices = arguments[1] if len(arguments) > 1 and isinstance(arguments[1], list) else config.get("choices")
    return (placeholder if isinstance(placeholder, str) else None), _choice_values(choices)


def _choice_values(choices: Any) -> list[Any] | None:
    """The values of literal choices: strings, or `{ name, value }` objects with string values."""
    if not isinstance(choices, list) or not choices:
        return None
    values = [
        choice.get("value", choice.get("name")) if isinstance(choice, dict) else choice for choice in choices
    ]
    return values if all(isinstance(value, str) for value in values) else None


def _parameter_name(mask: str, at: int, placeholder: str | None, number: int) -> str:
    """The variable the call's value goes to (as Script Kit names it), else a name made
    from the placeholder, else `arg<number>`."""
    line_start = mask.rfind("\n", 0, at) + 1
    before = mask[line_start:at]
    if not before.strip(" \t(") or before.strip(" \t(") == "await":  # `x =` on the line above
        previous = mask.rfind("\n", 0, max(line_start - 1, 0)) + 1
        before = mask[previous:at]
    assigned = _ASSIGNED.search(before)
    if assigned:
        return assigned.group("name").replace("$", "_")
    slug = _NOT_NAME.sub("_", (placeholder or "").lower()).strip("_")[:40].rstrip("_")
    if slug and not slug[0].isdigit():
        return slug
    return f"arg{number}"


def _unique(name: str, taken: set[str]) -> str:
    unique, count = name, 1
    while unique in taken:
        count += 1
        unique = f"{name}_{count}"
    taken.add(unique)
    return unique
