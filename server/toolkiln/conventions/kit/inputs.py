"""One entry of a kit script's `schema.input` as a parameter (the grammar is in
docs/dialects.md):

    title: { type: 'string', required: true, description: 'The title' },
    stars: { type: 'integer', min: 0, max: 5, default: 0 },
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolkiln.conventions.base import make_parameter
from toolkiln.conventions.javascript.object_literal import ObjectLiteral
from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import PARAM_TYPES, ParamType, value_matches_type

if TYPE_CHECKING:
    from toolkiln.model import Parameter

_TYPES: dict[str, ParamType] = {name: name for name in PARAM_TYPES}
KNOWN_KEYS = (
    "type", "description", "required", "default", "enum", "min", "max", "items", "secret", "example",
    "multiline",
)  # fmt: skip

# Makes the error for a parameter's key (None: the parameter itself) with its line.
_Fail = Callable[[str | None, str], DiscoveryError]


def input_parameter(
    name: str, spec: Any, schema: ObjectLiteral, path: str, warnings: list[DiscoveryError]
) -> Parameter:
    """The parameter one entry of `schema.input` declares (`warnings` gets the keys it ignores)."""
    line = schema.line_of(("input", name))

    def fail(key: str | None, message: str) -> DiscoveryError:
        """The error for one of the parameter's keys (or the parameter), at its line."""
        where = ("input", name, key) if key else ("input", name)
        return DiscoveryError(f"input {name!r}: {message}", path=path, line=schema.line_of(where))

    if not isinstance(spec, dict):
        raise fail(None, "must be an object such as { type: 'string', description: '...' }")
    for key in spec:
        if key not in KNOWN_KEYS:
            warnings.append(fail(key, f"ignoring unknown key {key!r} (known: {', '.join(KNOWN_KEYS)})"))
    fields: dict[str, Any] = {"name": name}
    fields["type"], kind = _parameter_type(spec, fail)
    if kind:
        fields["kind"] = kind
    if "enum" in spec:
        fields["enum"] = spec["enum"]
    example = spec.get("example")
    if example is not None and value_matches_type(example, fields["type"]):  # Script Kit's: a suggestion
        fields["examples"] = [example]
    if not isinstance(description := spec.get("description", ""), str):
        raise fail("description", "'description' must be a string")
    fields["description"] = description
    for flag in ("required", "secret", "multiline"):
        if flag in spec:
            if not isinstance(spec[flag], bool):
                raise fail(flag, f"'{flag}' must be true or false, not {spec[flag]!r}")
            fields[flag] = spec[flag]
    for bound in ("min", "max"):
        if spec.get(bound) is not None:
            if not _is_number(spec[bound]):
                raise fail(bound, f"'{bound}' must be a number, not {spec[bound]!r}")
            fields[bound] = spec[bound]
    if "items" in spec:
        fields["items"] = _items_type(spec["items"], fail)
    if "default" in spec and not fields.get("required"):
        fields["default"] = spec["default"]
    try:
        return make_parameter(path, line, **fields)
    except DiscoveryError as error:
        raise fail(None, error.reason.removeprefix(f"parameter {name!r}: ")) from None


def _parameter_type(spec: dict[str, Any], fail: _Fail) -> tuple[ParamType, str | None]:
    """The parameter's type, and its kind ("path") if it has one."""
    raw = spec.get("type")
    if raw is None:
        return (_enum_type(spec, fail), None) if "enum" in spec else ("string", None)
    if not isinstance(raw, str):
        raise fail("type", f"'type' must be a string such as 'string', not {raw!r}")
    name = raw.lower()
    if name == "enum":
        if "enum" not in spec:
            raise fail("type", "type 'enum' needs its values: enum: ['a', 'b']")
        return _enum_type(spec, fail), None
    if name == "path":
        return "string", "path"
    if name not in _TYPES:
        raise fail("type", f"unknown type {raw!r} (known: {', '.join(PARAM_TYPES)}, enum, path)")
    return _TYPES[name], None


def _enum_type(spec: dict[str, Any], fail: _Fail) -> ParamType:
    """The type that an enum's values share."""
    values = spec["enum"]
    if not isinstance(values, list) or not values:
        raise fail("enum", "'enum' must be a non-empty list of values: ['a', 'b']")
    if all(isinstance(value, str) for value in values):
        return "string"
    if all(isinstance(value, int) and not isinstance(value, bool) for value in values):
        return "integer"
    if all(_is_number(value) for value in values):
        return "number"
    raise fail("enum", "enum values must all be strings or all numbers")


def _items_type(raw: Any, fail: _Fail) -> ParamType:
    """`items: 'string'` or `items: { type: 'string' }` (Script Kit's item schema: what
    more it says of the items, such as an `enum`, is not checked)."""
    if isinstance(raw, dict) and "type" in raw:
        raw = raw["type"]
    name = raw.lower() if isinstance(raw, str) else ""
    if name not in _TYPES:
        raise fail("items", f"'items' must be a type name such as 'string' (one of {', '.join(PARAM_TYPES)})")
    return _TYPES[name]


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
