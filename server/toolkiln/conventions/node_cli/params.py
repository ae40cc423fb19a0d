"""What the node-cli readers share: positional placeholders (`<file> [more...]`), the
type a parser function gives (`parseInt`), defaults of the declared type, and the
parameter itself (or a `DiscoveryError` that names the file and line)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolkiln.conventions.base import make_parameter
from toolkiln.conventions.javascript.values import OPAQUE, Construct, Name
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.model import Parameter

# `<name>` required, `[name]` optional; `...` (commander) or `..` (yargs) takes many.
_PLACEHOLDER = re.compile(r"([<\[])\s*([^<>\[\]\s|]+?)\s*(\.\.\.?)?\s*[>\]]")
_PARSERS = {
    "parseInt": "integer",
    "Number.parseInt": "integer",
    "parseFloat": "number",
    "Number.parseFloat": "number",
    "Number": "number",
}
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass(frozen=True)
class Placeholder:
    name: str
    required: bool
    variadic: bool


def read_placeholders(text: str) -> list[Placeholder]:
    """`<file> [rest...]` -> file (required), rest (optional, many)."""
    return [
        Placeholder(match.group(2), match.group(1) == "<", bool(match.group(3)))
        for match in _PLACEHOLDER.finditer(text)
    ]


def parser_type(value: Any) -> str | None:
    """The type a value parser gives: `parseInt` -> integer, `parseFloat` -> number."""
    return _PARSERS.get(value.dotted) if isinstance(value, Name) else None


def is_literal(value: Any) -> bool:
    """Whether a value read from the source is data (not a name, a call or a function)."""
    if value is OPAQUE or isinstance(value, Name | Construct):
        return False
    if isinstance(value, list):
        return all(is_literal(item) for item in value)
    if isinstance(value, dict):
        return all(is_literal(item) for item in value.values())
    return True


def default_of(value: Any, param_type: str, items: str | None = None) -> Any:
    """A literal default in the parameter's type (commander's `'80'` for a number is 80),
    or None when the default is not a literal or not of the type."""
    if not is_literal(value) or value is None:
        return None
    if param_type == "array":
        values = value if isinstance(value, list) else [value]
        converted = [default_of(item, items or "string") for item in values]
        return converted if None not in converted else None
    if param_type in ("integer", "number") and isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        value = int(number) if number.is_integer() else number
    if param_type == "integer" and isinstance(value, float) and value.is_integer():
        value = int(value)
    expected = {"string": str, "integer": int, "number": int | float, "boolean": bool}.get(param_type)
    if expected is None or isinstance(value, bool) != (param_type == "boolean"):
        return None
    return value if isinstance(value, expected) else None


def enum_of(values: Any, param_type: str) -> list[Any] | None:
    """Literal choices, each in the parameter's type."""
    if not isinstance(values, list) or not values or not is_literal(values):
        return None
    converted = [default_of(value, param_type) for value in values]
    return converted if None not in converted else None


def parameter_name(raw: str) -> str:
    """A parameter name from an option or positional name (`dry-run` stays, `$x` -> `x`)."""
    name = _UNSAFE.sub("_", raw).strip("_") or "value"
    return name if re.match(r"[A-Za-z_]", name) else f"_{name}"


def make_cli_parameter(path: str, line: int, **fields: Any) -> Parameter:
    return make_parameter(path, line, **{key: value for key, value in fields.items() if value is not None})


def check_unique(parameters: list[Parameter], path: str, lines: dict[str, int]) -> None:
    seen: set[str] = set()
    for param in parameters:
        if param.name in seen:
            raise DiscoveryError(
                f"declares {param.name!r} twice (an option and a positional, or two options of one name)",
                path=path,
                line=lines.get(param.name),
            )
        seen.add(param.name)
