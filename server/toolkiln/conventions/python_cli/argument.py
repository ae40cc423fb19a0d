"""One argparse `add_argument(...)` call as a parameter: its flags, `action`, `nargs`,
`type`, `choices`, `default`, `required`, `dest` and `help` (with `%(default)s`)."""

from __future__ import annotations

import ast
import re
from typing import Any

from toolkiln.conventions.python_cli.read import Reading
from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import ParamType, value_matches_type

ARGPARSE_TYPES: dict[str, ParamType] = {
    "int": "integer", "float": "number", "str": "string", "Path": "string", "PurePath": "string",
    "FileType": "string", "open": "string",
}  # fmt: skip
_NARGS_NAMES = {"REMAINDER": "...", "ONE_OR_MORE": "+", "ZERO_OR_MORE": "*", "OPTIONAL": "?"}
_FLAG_ACTIONS = ("store_true", "store_false", "store_const", "append_const")
_KNOWN_ACTIONS = (
    "store",
    "append",
    "extend",
    "count",
    "help",
    "version",
    "BooleanOptionalAction",
    *_FLAG_ACTIONS,
)
_HELP_FIELD = re.compile(r"%\((\w+)\)[sdrfi]|%%")


def read_argument(call: ast.Call, reading: Reading, *, in_required_group: bool) -> None:
    """Add the parameter that `call` declares to `reading` (nothing for `--help`/`--version`)."""
    line = call.lineno
    what = f"add_argument({', '.join(ast.unparse(arg) for arg in call.args)})"
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    flags = [arg.value for arg in call.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
    dest_only = reading.literal(keywords.get("dest")) if not call.args else None
    if isinstance(dest_only, str) and dest_only and not dest_only.startswith("-"):
        flags = [dest_only]  # `add_argument(dest="path")`: a positional named by its dest
    literal = len(flags) == len(call.args) or not call.args
    if not literal or not flags or any(k.arg is None for k in call.keywords):
        raise DiscoveryError(
            f"{what}: its flags or options are not literal, so whether it is required cannot be told "
            "without running the script; the tool is not published",
            path=reading.path,
            line=line,
        )
    action = _action(keywords.get("action"), reading)
    if action in ("help", "version"):
        return
    positional = not flags[0].startswith("-")
    nargs = _nargs(keywords.get("nargs"), reading)
    required_node = keywords.get("required")
    if positional:
        required = nargs not in ("?", "*", "...")
    elif required_node is None:
        required = False
    else:  # `required=True`, or an expression: assume it may be
        required = not (isinstance(required_node, ast.Constant) and not required_node.value)
    if action not in _KNOWN_ACTIONS:
        reading.cannot_represent(
            what, f"its action {ast.unparse(keywords['action'])} is the script's own", line, required=required
        )
        return
    option = "" if positional else _long_option(flags)
    dest = reading.literal(keywords.get("dest"))
    if dest == "==SUPPRESS==":
        return
    name = (dest if isinstance(dest, str) else None) or (
        flags[0] if positional else option.lstrip("-").replace("-", "_")
    )
    help_node = keywords.get("help")
    hidden = isinstance(help_node, ast.Attribute) and help_node.attr == "SUPPRESS"
    if hidden and not required:
        return
    default = reading.literal(keywords.get("default"))
    if default == "==SUPPRESS==":
        default = None
    item_type = _value_type(keywords.get("type"))
    fields: dict[str, Any] = {"name": name, "option": option, "required": required and not in_required_group}
    if action in _FLAG_ACTIONS:
        fields.update(
            type="boolean",
            option_form="flag",
            default=default if isinstance(default, bool) else action == "store_false",
        )
    elif action == "BooleanOptionalAction":
        fields.update(type="boolean", option_form="flag", option=_negatable(flags))
        fields["default"] = default if isinstance(default, bool) else None
    elif action == "count":
        fields.update(
            type="integer", option_form="count", min=0, default=default if isinstance(default, int) else None
        )
    elif action in ("append", "extend") or nargs not in (None, "?"):
        if action == "append" and nargs not in (None, "?"):
            reading.cannot_represent(what, "append with nargs makes a list of lists", line, required=required)
            return
        if isinstance(nargs, int) and action == "extend":
            reading.cannot_represent(what, "extend with a fixed nargs", line, required=required)
            return
        fields.update(type="array", items=item_type)
        if not positional:
            fields["option_form"] = "repeat" if action in ("append", "extend") else "list"
        if isinstance(nargs, int):
            fields.update(min=nargs, max=nargs)
        elif nargs == "+" and action == "store":
            fields["min"] = 1
        fields["default"] = default if isinstance(default, list) and default else None
        _add_choices(fields, keywords, reading, item=True)
    else:
        fields.update(type=item_type, default=default)
        _add_choices(fields, keywords, reading, item=False)
    if fields.get("required"):
        fields["default"] = None
    description = _help(help_node, reading, name, fields.get("default"), keywords, hidden)
    if _hint(keywords.get("type")) == "bool" and fields["type"] != "boolean":  # argparse's classic trap
        description = f"{description} (read with bool(): any text but an empty one is true)".strip()
    elif (
        fields["type"] == "string"
        and _hint(keywords.get("type")) not in ARGPARSE_TYPES
        and "type" in keywords
    ):
        description = f"{description} (read by the script's {ast.unparse(keywords['type'])})".strip()
    extra = fields.pop("description_extra", None)
    fields["description"] = f"{description} ({extra})".strip() if extra else description
    _add_checked(reading, line, (call.lineno, call.col_offset), fields, flags, required=required, what=what)


def _add_checked(
    reading: Reading,
    line: int,
    origin: tuple[int, int],
    fields: dict[str, Any],
    flags: list[str],
    *,
    required: bool,
    what: str,
) -> None:
    """Add the parameter; a default or an enum the type cannot hold is dropped (the script
    keeps its own), and a name already taken falls back to the option's own name."""
    if fields.get("default") is not None and not value_matches_type(fields["default"], fields["type"]):
        fields["default"] = None
    taken = {param.name for param in reading.parameters}
    if fields["name"] in taken and fields["option"]:
        fields["name"] = fields["option"].split("/")[0].lstrip("-").replace("-", "_")
    if fields["name"] in taken:
        reading.cannot_represent(
            what, f"its name {fields['name']!r} is taken by another argument", line, required=required
        )
        return
    fields = {key: value for key, value in fields.items() if value is not None}
    try:
        reading.add(line, origin=origin, **fields)
    except DiscoveryError:
        fields.pop("default", None)
        fields.pop("enum", None)
        reading.add(line, origin=origin, **fields)


def _action(node: ast.expr | None, reading: Reading) -> str:
    if node is None:
        return "store"
    if _hint(node) == "BooleanOptionalAction":  # argparse.X, or X imported from argparse
        return "BooleanOptionalAction"
    value = reading.literal(node)
    return value if isinstance(value, str) else "custom"


def _nargs(node: ast.expr | None, reading: Reading) -> str | int | None:
    if isinstance(node, ast.Attribute) and node.attr in _NARGS_NAMES:
        return _NARGS_NAMES[node.attr]
    value = reading.literal(node)
    return value if isinstance(value, str | int) else None


def _long_option(flags: list[str]) -> str:
    return next((flag for flag in flags if flag.startswith("--")), flags[0])


def _negatable(flags: list[str]) -> str:
    option = _long_option(flags)
    return f"{option}/--no-{option[2:]}" if option.startswith("--") else option


def _hint(node: ast.expr | None) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _value_type(node: ast.expr | None) -> ParamType:
    return ARGPARSE_TYPES.get(_hint(node), "string") if node is not None else "string"


def _add_choices(
    fields: dict[str, Any], keywords: dict[str, ast.expr], reading: Reading, *, item: bool
) -> None:
    choices = reading.literal(keywords.get("choices"))
    if not isinstance(choices, list | tuple | set | frozenset | dict) or not choices:
        return
    values = list(choices)
    kind = fields["items"] if item else fields["type"]
    if not all(value_matches_type(value, kind) for value in values):
        return
    if item:  # an array of choices: listed in the description (an enum applies to one value)
        fields["description_extra"] = f"each one of: {', '.join(map(str, values))}"
    else:
        fields["enum"] = values


def _help(
    node: ast.expr | None,
    reading: Reading,
    name: str,
    default: Any,
    keywords: dict[str, ast.expr],
    hidden: bool,
) -> str:
    text = "" if hidden else reading.literal(node, "")
    if not isinstance(text, str):
        text = ""
    values = {
        "default": default,
        "dest": name,
        "prog": reading.path.rsplit("/", 1)[-1],
        "choices": ", ".join(map(str, reading.literal(keywords.get("choices"), []) or [])),
        "metavar": reading.literal(keywords.get("metavar"), name),
        "type": _hint(keywords.get("type")),
        "required": "required" in keywords,
    }
    return _HELP_FIELD.sub(
        lambda m: "%" if m.group(0) == "%%" else str(values.get(m.group(1), m.group(0))), text
    ).strip()
