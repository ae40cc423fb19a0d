"""Parameters to JSON Schema (2020-12), and arguments checked against that schema.

The one module that knows how a parameter becomes a schema, and the one that
validates a call's arguments. jsonschema is imported on first validation only:
`discover` and `build` never pay for it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from toolkiln.model import Parameter, ParamType

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

_JSON_TYPES: dict[ParamType, str | None] = {
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
    "any": None,
}
_LIMIT_KEYWORDS: dict[str, tuple[str, str]] = {
    "string": ("minLength", "maxLength"),
    "array": ("minItems", "maxItems"),
    "integer": ("minimum", "maximum"),
    "number": ("minimum", "maximum"),
}


def parameters_to_schema(parameters: Iterable[Parameter]) -> dict[str, Any]:
    """The input schema of a tool: an object that admits exactly its parameters."""
    parameters = list(parameters)
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {param.name: parameter_to_schema(param) for param in parameters},
        "additionalProperties": False,
    }
    required = [param.name for param in parameters if param.required]
    if required:
        schema["required"] = required
    return schema


def parameter_to_schema(param: Parameter) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    json_type = _JSON_TYPES[param.type]
    if json_type is not None:
        schema["type"] = json_type
    if param.kind == "path":
        schema["format"] = "path"  # resolved inside the tool's workspace before the script runs
    if param.multiline:
        schema["contentMediaType"] = "text/plain"  # a document, not a line (JSON Schema's content vocabulary)
    if param.description:
        schema["description"] = param.description
    if param.enum is not None:
        schema["enum"] = list(param.enum)
    if param.examples is not None:
        schema["examples"] = list(param.examples)
    if param.header is not None:
        schema["x-mcp-header"] = param.header
    if param.items is not None and (item_type := _JSON_TYPES[param.items]) is not None:
        schema["items"] = {"type": item_type}
    low, high = _LIMIT_KEYWORDS.get(param.type, ("", ""))
    if param.min is not None:
        schema[low] = _whole_if_possible(param.min, param.type)
    if param.max is not None:
        schema[high] = _whole_if_possible(param.max, param.type)
    if param.default is not None:
        schema["default"] = param.default
    return schema


def _whole_if_possible(bound: float, param_type: ParamType) -> float:
    return int(bound) if param_type != "number" and bound == int(bound) else bound


class ArgumentChecker:
    """Validates arguments against one tool's input schema (compile once, check often)."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        from jsonschema import Draft202012Validator

        self.schema = schema
        self._validator: Draft202012Validator = Draft202012Validator(dict(schema))

    def problems(self, arguments: Mapping[str, Any]) -> list[str]:
        """Every way `arguments` break the schema, each as a sentence; empty when valid."""
        errors = sorted(self._validator.iter_errors(dict(arguments)), key=lambda e: [str(p) for p in e.path])
        return [_describe(error) for error in errors] + _unpassable_values(arguments)


def _unpassable_values(arguments: Mapping[str, Any]) -> list[str]:
    """Values no script could be given, wherever they sit in the arguments (keys too):
    NaN and Infinity, which JSON has no words for (the SDK's parser and Python's take
    them all the same; JSON Schema does not forbid them); a NUL character, which no file
    name, command-line argument or environment variable can hold; a lone surrogate
    (`\\ud800`), which is no text at all and has no UTF-8 form."""
    found = []
    pending: list[tuple[str, Any]] = list(arguments.items())
    while pending:  # a loop, not recursion: arguments may be nested deep
        where, value = pending.pop()
        if isinstance(value, float) and not math.isfinite(value):
            found.append(f"{where}: {value} is not a JSON number")
        elif isinstance(value, str):
            found += [f"{where}: {problem}" for problem in _text_problems(value)]
        elif isinstance(value, dict):
            for key, item in value.items():
                found += [f"{where}: the key {key!r} {problem}" for problem in _text_problems(key)]
                pending.append((f"{where}.{key}", item))
        elif isinstance(value, list):
            pending += [(f"{where}[{index}]", item) for index, item in enumerate(value)]
    return sorted(found)


def _text_problems(text: str) -> list[str]:
    problems = []
    if "\0" in text:
        problems.append(
            "contains a NUL character (\\u0000), which no file name, command-line argument "
            "or environment variable can hold"
        )
    if _SURROGATE.search(text):
        problems.append(
            "contains a lone surrogate (\\ud800-\\udfff), which is not text (it has no UTF-8 form)"
        )
    return problems


_SURROGATE = re.compile("[\ud800-\udfff]")


def prepare_arguments(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Valid arguments as a script should get them: every omitted parameter that has a
    default filled in, and an integer sent as `3.0` (valid JSON Schema) made `3`, so
    that shell arithmetic on `$count` works."""
    prepared = dict(arguments)
    for name, prop in schema.get("properties", {}).items():
        if name not in prepared:
            if "default" in prop:
                prepared[name] = prop["default"]
        elif prop.get("type") == "integer" and isinstance(prepared[name], float):
            prepared[name] = int(prepared[name])
    return prepared


def parse_cli_value(param: Parameter | None, text: str) -> Any:
    """A `key=value` argument from the command line, read as the parameter's type.

    Strings stay as typed; other types are read as JSON (`count=3`, `flag=true`,
    `items=["a","b"]`), falling back to the text when it is not JSON so that the
    validator reports a clear type error instead of a parse error.
    """
    if param is not None and param.type == "string":
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _describe(error: ValidationError) -> str:
    where = ".".join(str(part) for part in error.path)
    if error.validator == "additionalProperties":
        properties = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        instance: dict[str, Any] = error.instance if isinstance(error.instance, dict) else {}
        unknown = sorted(set(instance) - set(properties))
        allowed = ", ".join(sorted(properties)) or "none"
        names = ", ".join(repr(name) for name in unknown)
        return f"unknown argument {names} (this tool accepts: {allowed})"
    if error.validator == "required":
        return error.message.replace("is a required property", "is required")
    value = json.dumps(error.instance)
    if len(value) > 60:
        value = value[:57] + "..."
    limit = error.validator_value
    reason = {
        "type": f"must be of type {limit}",
        "enum": f"must be one of {json.dumps(limit)}",
        "minLength": f"must be at least {_count(limit, 'character')} long",
        "maxLength": f"must be at most {_count(limit, 'character')} long",
        "minimum": f"must be at least {limit}",
        "maximum": f"must be at most {limit}",
        "minItems": f"must have at least {_count(limit, 'item')}",
        "maxItems": f"must have at most {_count(limit, 'item')}",
    }.get(str(error.validator), error.message)
    return f"{where or 'arguments'}: {value} {reason}" if where else f"arguments {reason}"


def _count(number: Any, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
