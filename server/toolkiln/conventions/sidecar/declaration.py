"""What a sidecar declares, once read and parsed: the tool's description, title and
version, its input schema (served as it is) or list of parameters, which arguments go on
the command line (`argv`), and the timeout and annotations a new config starts from.
Errors name the sidecar's key and its line.
"""

from __future__ import annotations

import re
from typing import Any

from toolkiln.conventions.base import Declaration, make_parameter
from toolkiln.conventions.sidecar.schema import parameters_of_list, parameters_of_schema
from toolkiln.errors import DiscoveryError

SCHEMA_KEYS = ("inputSchema", "input_schema", "arguments", "parameters")
KNOWN_KEYS = {
    "name", "title", "description", *SCHEMA_KEYS, "argv", "outputSchema", "output_schema",
    "timeoutSecs", "timeout", "annotations", "icons", "_meta", "version",
}  # fmt: skip
_OPTION = re.compile(r"-{1,2}[A-Za-z0-9][A-Za-z0-9_.-]*")


def declaration_of(data: dict[str, Any], text: str, path: str) -> Declaration:
    """The tool a parsed sidecar declares (`text` gives lines for the errors)."""
    warnings: list[DiscoveryError] = []
    unknown = sorted(set(data) - KNOWN_KEYS)
    if unknown:
        warnings.append(DiscoveryError(f"ignoring unknown keys {unknown}", path=path))
    description = _string(data, "description", text, path) or ""
    title = _string(data, "title", text, path)
    annotations = data.get("annotations")
    if title is None and isinstance(annotations, dict) and isinstance(annotations.get("title"), str):
        title = annotations["title"]
    key = next((key for key in SCHEMA_KEYS if key in data), None)
    raw = data.get(key) if key else None
    input_schema: dict[str, Any] | None
    if isinstance(raw, list):
        parameters = parameters_of_list(raw, text, path, key or "parameters")
        input_schema = None
    else:
        input_schema = _object_schema(raw, text, path, key)
        parameters = parameters_of_schema(input_schema, text, path, key, warnings)
    parameters = _with_argv(parameters, data.get("argv"), text, path)
    version = data.get("version")
    settings = _settings(data)
    return Declaration(
        dialect="sidecar",
        description=description,
        parameters=parameters,
        title=title or None,
        version=str(version) if isinstance(version, str | int | float) and version != "" else None,
        input_schema=input_schema,
        warnings=warnings,
        settings=settings,
    )


# MCP's tool annotations, as the per-tool settings toolkiln serves them from.
_ANNOTATION_SETTINGS = {
    "readOnlyHint": "read_only",
    "destructiveHint": "destructive",
    "idempotentHint": "idempotent",
    "openWorldHint": "open_world",
}


def _settings(data: dict[str, Any]) -> dict[str, Any]:
    """`timeoutSecs` and the annotations, as the starting values of a new config."""
    settings: dict[str, Any] = {}
    timeout = data.get("timeoutSecs", data.get("timeout"))
    if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
        settings["timeout_seconds"] = float(timeout)
    annotations = data.get("annotations")
    if isinstance(annotations, dict):
        for hint, key in _ANNOTATION_SETTINGS.items():
            if isinstance(annotations.get(hint), bool):
                settings[key] = annotations[hint]
    return settings


def _string(data: dict[str, Any], key: str, text: str, path: str) -> str | None:
    from toolkiln.files import locate_key

    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    raise DiscoveryError(f"'{key}' must be a string", path=path, line=locate_key(text, (key,)))


def _object_schema(raw: Any, text: str, path: str, key: str | None) -> dict[str, Any]:
    """The input schema as mcp-bash serves it: none is an empty object; a schema without
    `type` is an object schema."""
    from toolkiln.files import locate_key

    if raw is None:
        return {"type": "object", "properties": {}}
    if not isinstance(raw, dict):
        raise DiscoveryError(
            f"'{key}' must be a JSON Schema object (or, for 'parameters', a list)",
            path=path,
            line=locate_key(text, (key or "",)),
        )
    schema = dict(raw)
    schema.setdefault("type", "object")
    if schema["type"] != "object":
        raise DiscoveryError(
            f"'{key}' must be a schema of type object, not {schema['type']!r}",
            path=path,
            line=locate_key(text, (key or "", "type")),
        )
    schema.setdefault("properties", {})
    return schema


def _with_argv(parameters: list[Any], argv: Any, text: str, path: str) -> list[Any]:
    """`argv` ({"name": "--opt" or ""}) as each parameter's `option`; those first, in order."""
    from toolkiln.files import locate_key

    if argv is None:
        return parameters
    line = locate_key(text, ("argv",))
    if not isinstance(argv, dict):
        raise DiscoveryError(
            '\'argv\' must be an object: {"parameter": "--option", "positional": ""}', path=path, line=line
        )
    by_name = {param.name: param for param in parameters}
    placed = []
    for name, option in argv.items():
        where = locate_key(text, ("argv", name)) or line
        if name not in by_name:
            raise DiscoveryError(
                f"argv names {name!r}, which is not a parameter with a plain name "
                f"(parameters: {', '.join(sorted(by_name)) or 'none'})",
                path=path,
                line=where,
            )
        if not (isinstance(option, str) and (option == "" or _OPTION.fullmatch(option))):
            raise DiscoveryError(
                f"argv[{name!r}] must be an option such as '--{name}' or '-n', or \"\" for a positional",
                path=path,
                line=where,
            )
        fields = by_name[name].model_dump(exclude_none=True) | {"option": option}
        placed.append(make_parameter(path, where, **fields))
    return placed + [param for param in parameters if param.name not in argv]
