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

from toolkiln.conventions.base import make_parameter
from toolkiln.conventions.javascript.object_literal import LiteralError, parse_object_literal
from toolkiln.conventions.javascript.places import Brackets, Statements, code_mask, header_end, header_window
from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import PARAM_TYPES

if TYPE_CHECKING:
    from toolkiln.model import Parameter

_ARG_CALL = re.compile(r"(?<![\w$.])arg\s*\(")
_PARAMS_CALL = re.compile(r"(?<![\w$.])(?P<call>params|tool)\s*+(?:<[^<>()]*>)?\s*+\(")
_ASSIGNED = re.compile(
    r"(?:\b(?:const|let|var)\s+)?(?<![\w$])(?P<name>[A-Za-z_$][\w$]*+)\s*+(?::[^=;]*+)?=[(\s]*+(?:await[(\s]*+)?$"
)
_LOOP_HEADER = re.compile(r"\b(?:for|while)\s*$|\bdo\s*$")
_BRANCH_HEADER = re.compile(r"\b(?:if|switch|catch)\s*$|\b(?:else|case\b[^:]*:|default\s*:)\s*$")
_LOOP_CALLS = re.compile(
    r"\.(?:map|forEach|flatMap|filter|reduce|reduceRight|some|every|find|findIndex|sort)\s*$"
    r"|\b(?:setInterval|setTimeout)\s*$"
)
_CONDITIONAL = re.compile(r"\?(?![.?])|&&|\|\||\?\?")
_NOT_NAME = re.compile(r"[^a-z0-9]+")
# `"a" as const`, `[...] as Choice[]`: a TypeScript cast after a literal argument.
_CAST_TAIL = re.compile(r"[\w.<>\[\]\s]*")  # read on the reversed text: the tail a cast may be
_CAST = re.compile(r"(?<!\s)\s+as(?=\s)")
# Real scripts make a handful of arg() calls, nested a few brackets deep; a script past
# these is refused, so that no script can make each call's reading cost the whole text.
MAX_ARG_CALLS = 100
MAX_ARG_DEPTH = 64
_LARGEST_ARGUMENT = 64 * 1024  # an argument longer than this is not read as a literal
_JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object"}


def arg_parameters(text: str, path: str) -> list[Parameter]:
    """One required string parameter per `arg(...)` call, in order."""
    mask = code_mask(text)
    calls = list(_ARG_CALL.finditer(mask))
    if len(calls) > MAX_ARG_CALLS:
        raise DiscoveryError(
            f"makes {len(calls)} arg() calls; toolkiln reads at most {MAX_ARG_CALLS} "
            "(declare the input with params({...}))",
            path=path,
            line=text.count("\n", 0, calls[MAX_ARG_CALLS].start()) + 1,
        )
    brackets = Brackets.read(mask, [call.start() for call in calls], MAX_ARG_DEPTH)
    statements = Statements.read(mask, _CONDITIONAL)
    parameters: list[Parameter] = []
    names: set[str] = set()
    line, counted = 1, 0
    for number, call in enumerate(calls, start=1):
        line += text.count("\n", counted, call.start())
        counted = call.start()
        problem = _unfixed_place(mask, call.start(), brackets, statements)
        if problem:
            raise DiscoveryError(
                f"arg() {problem}, so which value it takes cannot be known without running "
                "the script; give each value its own arg() call, or declare the input with "
                "params({...})",
                path=path,
                line=line,
            )
        arguments = _call_arguments(text, mask, call.end() - 1, brackets)
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
    mask = code_mask(text)
    brackets = Brackets.read(mask, [], 0)
    arguments = _call_arguments(text, mask, call.end() - 1, brackets)
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


def _unfixed_place(mask: str, at: int, brackets: Brackets, statements: Statements) -> str | None:
    """Why the call at `at` may run other than once (in a loop, a callback, a branch), or None."""
    openers = brackets.enclosing[at]
    if len(openers) > MAX_ARG_DEPTH:
        return f"is nested more than {MAX_ARG_DEPTH} brackets deep"
    for opener in openers:
        end = header_end(mask, opener)
        if mask[opener] == "(":
            if _LOOP_CALLS.search(mask, header_window(end), end):
                return "is called in a callback that may run several times (.map(), .forEach(), ...)"
            continue
        if mask[opener] != "{":
            continue
        end = _block_header_end(mask, end, brackets)
        if _LOOP_HEADER.search(mask, header_window(end), end):
            return "is called in a loop"
        if _BRANCH_HEADER.search(mask, header_window(end), end):
            return "is called only on some paths (in an if, else, switch or catch block)"
    if statements.marked_before(at):
        return "is called only on some paths (after ?, &&, || or ??)"
    return None


def _block_header_end(mask: str, end: int, brackets: Brackets) -> int:
    """Where what opens a `{` block ends: `for`, `if`, `else`, ... (its `(...)` skipped)."""
    if end == 0 or mask[end - 1] != ")":
        return end
    opening = brackets.opening.get(end - 1)
    return end if opening is None else header_end(mask, opening)


def _call_arguments(text: str, mask: str, opening: int, brackets: Brackets) -> list[Any]:
    """The literal arguments of the call whose `(` is at `opening` (the first two: the
    placeholder and the choices); None for one that is not a literal (a variable, a
    call, a template with `${...}`)."""
    values: list[Any] = []
    for begin, end in brackets.arguments(mask, opening)[:2]:
        source = _without_cast(text[begin:end].strip())
        if not source:
            continue
        if len(source) > _LARGEST_ARGUMENT:
            values.append(None)
            continue
        try:
            values.append(parse_object_literal("{v:" + source + "\n}").value["v"])
        except LiteralError:
            values.append(None)
    return values


def _without_cast(source: str) -> str:
    """`source` without a TypeScript cast at its end (`"a" as const`)."""
    tail = _CAST_TAIL.match(source[::-1])
    start = len(source) - (tail.end() if tail else 0)
    cast = _CAST.search(source, start)
    return source[: cast.start()] if cast and len(source) - cast.end() >= 2 else source


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
    line_start = _line_start(mask, at)
    before = mask[line_start:at]
    if not before.strip(" \t(") or before.strip(" \t(") == "await":  # `x =` on the line above
        before = mask[_line_start(mask, max(line_start - 1, 0)) : at]
    assigned = _ASSIGNED.search(before)
    if assigned:
        return assigned.group("name").replace("$", "_")
    slug = _NOT_NAME.sub("_", (placeholder or "").lower()).strip("_")[:40].rstrip("_")
    if slug and not slug[0].isdigit():
        return slug
    return f"arg{number}"


def _line_start(mask: str, at: int) -> int:
    """Where the line holding `at` starts, looked for at most a window back (an
    assignment is read from a line's last few hundred characters)."""
    window = header_window(at)
    return max(mask.rfind("\n", window, at) + 1, window)


def _unique(name: str, taken: set[str]) -> str:
    unique, count = name, 1
    while unique in taken:
        count += 1
        unique = f"{name}_{count}"
    taken.add(unique)
    return unique
