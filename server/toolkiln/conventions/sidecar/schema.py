"""A sidecar's parameters: from a whole JSON Schema (served as it is), or from a list
of parameters in toolkiln's own vocabulary (turned into a schema by `build`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolkiln.conventions.base import make_parameter
from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import PARAM_NAME_PATTERN, PARAM_TYPES, ParamType, sensitive_env_reason

if TYPE_CHECKING:
    from toolkiln.model import Parameter

# The environment the mcp-bash runtime reads (MCP_SDK, MCP_TOOL_ARGS_JSON, MCPBASH_JSON_TOOL_BIN,
# ...): never set by an argument.
RUNTIME_ENV_PREFIXES = ("MCP_", "MCPBASH_")
LIST_KEYS = {"name", "type", "description", "required", "default", "enum", "items", "min", "max", "examples"}


def parameters_of_schema(
    schema: dict[str, Any], text: str, path: str, key: str | None, warnings: list[DiscoveryError]
) -> list[Parameter]:
    """The top-level properties that can reach the program as env vars (and on the command
    line): the schema itself is what clients see and what arguments are checked against,
    and every argument reaches the program on stdin and in `MCP_TOOL_ARGS_JSON`."""
    from jsonschema import Draft202012Validator, SchemaError

    from toolkiln.files import locate_key

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        where = "/".join(str(part) for part in error.absolute_path) or "the top"
        raise DiscoveryError(
            f"'{key}' is not a valid JSON Schema at {where}: {error.message}",
            path=path,
            line=locate_key(text, (key or "", *error.absolute_path)),
        ) from None
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        raise DiscoveryError(
            f"'{key}.properties' must be an object",
            path=path,
            line=locate_key(text, (key or "", "properties")),
        )
    required = schema.get("required") or []
    parameters = []
    for name, spec in properties.items():
        line = locate_key(text, (key or "", "properties", name))
        if problem := _env_problem(name):
            warnings.append(
                DiscoveryError(
                    f"parameter {name!r} {problem}: it reaches the program on stdin and in "
                    "MCP_TOOL_ARGS_JSON, not as an environment variable",
                    path=path,
                    line=line,
                )
            )
            continue
        spec = spec if isinstance(spec, dict) else {}
        description = spec.get("description")
        parameters.append(
            make_parameter(
                path,
                line,
                name=name,
                type=_param_type(spec.get("type")),
                description=description if isinstance(description, str) else "",
                required=name in required,
            )
        )
    return parameters


def parameters_of_list(raw: list[Any], text: str, path: str, key: str) -> list[Parameter]:
    """`"parameters": [{"name": "count", "type": "integer", "required": true}, ...]`."""
    from toolkiln.files import locate_key

    parameters = []
    for index, entry in enumerate(raw):
        line = locate_key(text, (key, index))
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise DiscoveryError(
                f"each of '{key}' must be an object with a 'name': "
                '{"name": "count", "type": "integer", "required": true}',
                path=path,
                line=line,
            )
        unknown = sorted(set(entry) - LIST_KEYS)
        if unknown:
            raise DiscoveryError(
                f"parameter {entry['name']!r}: unknown keys {unknown} (known: {sorted(LIST_KEYS)})",
                path=path,
                line=line,
            )
        fields = dict(entry)
        if fields.get("type") == "float":
            fields["type"] = "number"
        if problem := _env_problem(fields["name"]):
            raise DiscoveryError(f"parameter {fields['name']!r} {problem}", path=path, line=line)
        parameters.append(make_parameter(path, line, **fields))
    return parameters


def _env_problem(name: str) -> str | None:
    if not PARAM_NAME_PATTERN.match(name):
        return "is not a plain name (letters, digits, _ and -)"
    if name.startswith(RUNTIME_ENV_PREFIXES):
        return "is named like the runtime's own variables (MCP_*, MCPBASH_*)"
    if reason := sensitive_env_reason(name):
        return f"cannot be an environment variable ({reason})"
    return None


def _param_type(raw: Any) -> ParamType:
    """JSON Schema's `type` as toolkiln's: `["string", "null"]` is a string; none is any."""
    names = raw if isinstance(raw, list) else [raw]
    for name in names:
        if name == "null":
            continue
        for known in PARAM_TYPES:
            if name == known:
                return known
    return "any"
