"""The options JSON a help-json script prints on stderr for `--help` (seeds/000), read
into parameters:

    {"a": {"description": "First", "required": true, "value_type": "integer",
           "size": {"min": 0, "max": 100}}}
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from toolkiln.conventions.base import make_parameter
from toolkiln.errors import DiscoveryError
from toolkiln.files import locate_key
from toolkiln.vocabulary import ParamType

if TYPE_CHECKING:
    from toolkiln.model import Parameter

VALUE_TYPES: dict[str, ParamType] = {
    "string": "string", "integer": "integer", "float": "number", "number": "number",
    "boolean": "boolean", "any": "any", "array": "array", "object": "object",
}  # fmt: skip
OPTION_KEYS = {"description", "required", "value_type", "type", "default_value", "default", "size", "secret"}
# Scripts written for mcpd run optional booleans as false and optional `any` as null
# when no default is given; every other optional option must declare its default.
_IMPLICIT_DEFAULT_TYPES = ("boolean", "any")


def parameters_of_options(options_text: str, path: str, warnings: list[DiscoveryError]) -> list[Parameter]:
    """The parameters of the options JSON `--help` printed on stderr (`warnings` gets
    what is ignored in it)."""
    options, skipped = _parse_options_json(options_text, path)
    json_text = "\n".join(options_text.splitlines()[skipped:])
    parameters = []
    for name, spec in options.items():
        line = locate_key(json_text, (name,))
        parameters.append(_parse_option(name, spec, path, line and line + skipped, warnings))
    return parameters


class _DuplicateKeyError(ValueError):
    pass


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    for key in keys:
        if keys.count(key) > 1:
            raise _DuplicateKeyError(repr(key))
    return dict(pairs)


_STRICT_DECODER = json.JSONDecoder(object_pairs_hook=_reject_duplicates)


def _parse_options_json(text: str, path: str) -> tuple[dict[str, Any], int]:
    """The options object, and how many log lines before it were skipped."""
    stripped = text.strip()
    if not stripped:
        return {}, 0
    # Tolerate log lines a script printed before its options JSON.
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.lstrip().startswith("{")), 0)
    try:
        # Log lines after the JSON are tolerated too: raw_decode stops at its end.
        options, _ = _STRICT_DECODER.raw_decode("\n".join(lines[first:]))
    except json.JSONDecodeError as error:
        raise DiscoveryError(
            f"the options JSON that `--help` printed on stderr is invalid: {error.msg} "
            f"(stderr line {first + error.lineno}, column {error.colno})",
            path=path,
        ) from None
    except _DuplicateKeyError as error:
        raise DiscoveryError(f"the options JSON on stderr names {error} twice", path=path) from None
    if not isinstance(options, dict) or not all(isinstance(spec, dict) for spec in options.values()):
        raise DiscoveryError(
            "the options `--help` printed on stderr must be a JSON object of objects: "
            '{"name": {"description": ..., "value_type": ...}}',
            path=path,
        )
    return options, first


def _parse_option(
    name: str, spec: dict[str, Any], path: str, line: int | None, warnings: list[DiscoveryError]
) -> Parameter:
    # `line` counts lines of the probe's stderr, not of the script: it goes in the
    # message, never in `path:line`, which would send the user to the wrong place.
    where = f"option {name!r}" + (f" (stderr line {line})" if line else "")

    def fail(message: str) -> DiscoveryError:
        return DiscoveryError(f"{where}: {message}", path=path)

    unknown = sorted(set(spec) - OPTION_KEYS)
    if unknown:
        warnings.append(fail(f"ignoring unknown keys {unknown} (known: {sorted(OPTION_KEYS)})"))
    raw_type = spec.get("value_type", spec.get("type", "string"))
    param_type, enum = _parse_value_type(raw_type, fail)
    flags = {flag: spec.get(flag, False) for flag in ("required", "secret")}
    for flag, value in flags.items():
        if not isinstance(value, bool):
            raise fail(f"'{flag}' must be true or false, not {value!r}")
    required = flags["required"]
    fields: dict[str, Any] = {
        "name": name,
        "type": param_type,
        "description": spec.get("description", ""),
        "enum": enum,
        "kind": "path" if raw_type == "path" else None,
        **flags,
    }
    if not isinstance(fields["description"], str):
        raise fail("'description' must be a string")
    default = spec.get("default_value", spec.get("default"))
    if not required:
        if default is None and param_type not in _IMPLICIT_DEFAULT_TYPES:
            raise fail(
                "an optional option needs a 'default_value' of its type "
                '(docs/dialects.md, "The help-json dialect")'
            )
        fields["default"] = False if default is None and param_type == "boolean" else default
    size = spec.get("size")
    if size is not None:
        if not isinstance(size, dict) or set(size) - {"min", "max"}:
            raise fail("'size' must be an object with 'min' and/or 'max'")
        fields["min"], fields["max"] = size.get("min"), size.get("max")
    try:
        return make_parameter(path, None, **fields)
    except DiscoveryError as error:
        raise fail(error.reason.removeprefix(f"parameter {name!r}: ")) from None


def _parse_value_type(raw: Any, fail: Any) -> tuple[ParamType, list[Any] | None]:
    if isinstance(raw, dict) and set(raw) == {"enum"}:
        values = raw["enum"]
        if not isinstance(values, list) or not values:
            raise fail('an enum value_type needs a non-empty list: {"enum": ["a", "b"]}')
        if all(isinstance(v, str) for v in values):
            return "string", values
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return "integer", values
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            return "number", values
        raise fail("enum values must all be strings or all numbers")
    if isinstance(raw, str) and raw.lower() in VALUE_TYPES:
        return VALUE_TYPES[raw.lower()], None
    if raw == "path":
        return "string", None
    raise fail(f'unknown value_type {raw!r} (known: {", ".join(VALUE_TYPES)}, path, or {{"enum": [...]}})')
