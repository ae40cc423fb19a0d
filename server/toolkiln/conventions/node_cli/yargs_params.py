"""One yargs option turned into a parameter: its settings, as `node_cli_yargs` merged
them from every call that names it (`.option('n', {...})`, `.alias('n', 'name')`,
`.boolean('n')`, a `$0 <file>` positional), give the parameter's name, type, default,
choices and whether it is required.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolkiln.conventions.node_cli.params import (
    default_of,
    enum_of,
    is_literal,
    make_cli_parameter,
    parameter_name,
)
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.model import Parameter

_TYPES = {"string": "string", "number": "number", "boolean": "boolean", "array": "array", "count": "boolean"}
_DEMANDS = ("demandOption", "demand", "required", "require")


def make_yargs_parameter(
    path: str, line: int, key: str, settings: dict[str, Any], positional: dict[str, Any] | None
) -> Parameter:
    """The parameter of option `key` (or of a `positional`, from the default command's
    usage), declared at `line` of `path`."""
    long_names = [name for name in [key, *aliases_of(settings)] if len(name) > 1]
    name = parameter_name(long_names[0] if long_names and len(key) == 1 else key)
    declared = settings.get("type")
    value_type = _TYPES.get(declared) if isinstance(declared, str) else None
    default = settings.get("default")
    choices = settings.get("choices")
    for flag in ("boolean", "string", "number", "count"):
        if settings.get(flag) is True and value_type is None:
            value_type = _TYPES[flag]
    declared_boolean = value_type == "boolean"
    if value_type is None:
        value_type = (
            _type_of_value(default)
            or _type_of_value((choices or [None])[0] if isinstance(choices, list) else None)
            or "string"
        )
    items: str | None = None
    if value_type == "array" or settings.get("array") is True or (positional and positional["variadic"]):
        items = value_type if value_type != "array" else "string"
        value_type = "array"
    fields: dict[str, Any] = {
        "name": name,
        "type": value_type,
        "items": items,
        "description": description_of(settings),
        "option": "" if positional else f"--{key}",
    }
    if value_type == "boolean" and not declared_boolean and not positional:
        fields["option"] = f"--{key}="  # yargs reads `--key` alone as the default: give the value
    if not is_literal(default) and default is not None:
        default = None
    fields["default"] = default_of(default, value_type, items)
    if value_type not in ("array", "boolean"):
        fields["enum"] = enum_of(choices, value_type)
    demanded = next((settings[key] for key in _DEMANDS if key in settings), None)
    if positional is None and not is_literal(demanded):
        raise DiscoveryError(
            f"cannot tell whether {key!r} is required (`demandOption` is not a literal)", path=path, line=line
        )
    required = bool(positional["required"]) if positional else bool(demanded)
    if settings.get("default") is not None and not is_literal(settings["default"]):
        required = False  # a default computed when the script runs fills it in
    fields["required"] = required and fields["default"] is None
    if fields["required"] and value_type == "array":
        fields["min"] = 1
    return make_cli_parameter(path, line, **fields)


def _type_of_value(value: Any) -> str | None:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    return None


def description_of(settings: dict[str, Any]) -> str:
    for key in ("describe", "description", "desc"):
        if isinstance(settings.get(key), str):
            return " ".join(settings[key].split())
    return ""


def aliases_of(settings: dict[str, Any]) -> list[str]:
    """The other names an option's `alias` setting gives it."""
    alias = settings.get("alias")
    names = alias if isinstance(alias, list) else [alias]
    return [name for name in names if isinstance(name, str)]
