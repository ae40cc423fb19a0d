"""What the dashboard shows of the tools, and the one thing it changes: a tool's `enabled`.

Every per-tool config (`config/tools/<key>.json`, enabled or not) is a row, with the
compiled tool the server serves from it now, if any; a built-in tool (`run_command`,
from `config/server.json`) has a row without a switch. A tool's form is made from the
schema its clients see (a `confirm` argument included, as for any client that cannot be
asked), one field per property.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkiln.errors import ConfigError
from toolkiln.files import load_tool_config, tool_configs_dir
from toolkiln.model import CompiledTool, ToolConfig
from toolkiln.runner import Registry
from toolkiln.schema import parameters_to_schema

# A string gets a one-line field, unless its schema says it holds a document: JSON
# Schema's `contentMediaType` (text/plain, text/markdown, application/json...), which a
# parameter of type `text` has (schema.py). A string format that a browser has an input for.
INPUT_TYPES = {"email": "email", "uri": "url", "date": "date"}


@dataclass(frozen=True)
class FormField:
    """One input of a tool's form. `kind` says how the page reads it back: text, secret,
    integer, number, boolean, choice (each option's value is JSON) or json."""

    name: str
    kind: str
    required: bool
    description: str = ""
    default: str | None = None  # shown (a string as it is, else JSON), not sent: the server applies it
    default_json: str | None = None  # the default as JSON: which of a choice's options it is
    minimum: float | None = None
    maximum: float | None = None
    multiline: bool = False
    options: list[tuple[str, str]] = field(default_factory=list)  # (JSON value, label)
    title: str = ""  # a label to show instead of the name (an elicitation's fields have one)
    input_type: str = "text"  # of a one-line text field: text, email, url or date


@dataclass(frozen=True)
class ToolRow:
    key: str  # config/tools/<key>.json; the built-in tool's name
    name: str
    title: str | None
    description: str
    dialect: str
    script: str | None
    enabled: bool
    served: bool
    builtin: bool = False
    tags: list[str] = field(default_factory=list)
    hints: dict[str, bool] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    schema: str = ""
    fields: list[FormField] = field(default_factory=list)
    problem: str | None = None  # a config that does not load

    @property
    def status(self) -> str:
        if self.problem:
            return "broken config"
        if self.served:
            return "served"
        return "enabled, not served (see toolkiln doctor)" if self.enabled else "disabled"


def tool_rows(registry: Registry, schemas: Mapping[str, dict[str, Any]], config_dir: Path) -> list[ToolRow]:
    """A row per per-tool config, then the built-in tools; `schemas` are the listed schemas by name."""
    by_file = {tool.config_file: tool for tool in registry.tools.values()}
    rows = []
    folder = tool_configs_dir(config_dir)
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        compiled = by_file.pop(f"{folder.name}/{path.name}", None)
        try:
            config = load_tool_config(path)
        except ConfigError as error:
            rows.append(_broken_row(path.stem, compiled, str(error)))
            continue
        rows.append(_config_row(path.stem, config, compiled, schemas))
    for tool in by_file.values():  # built in, with no per-tool config
        schema = schemas.get(tool.name, tool.input_schema)
        rows.append(
            ToolRow(
                key=tool.name, name=tool.name, title=tool.title, description=tool.description,
                dialect=tool.dialect, script=None, enabled=True, served=True, builtin=True,
                hints=_hints(tool), flags=_flags(tool), schema=_pretty(schema),
                fields=_fields(schema, tool),
            )
        )  # fmt: skip
    return rows


def _config_row(
    key: str, config: ToolConfig, compiled: CompiledTool | None, schemas: Mapping[str, dict[str, Any]]
) -> ToolRow:
    script = config.script_config
    if compiled is not None:
        schema = schemas.get(compiled.name, compiled.input_schema)
        fields = _fields(schema, compiled)
    else:
        schema = script.input_schema or parameters_to_schema(script.parameters)
        fields = []  # a tool that is not served cannot be tried
    return ToolRow(
        key=key,
        name=compiled.name if compiled else script.name,
        title=script.title or script.declared_title,
        description=script.description,
        dialect=script.dialect,
        script=script.script_path,
        enabled=config.enabled,
        served=compiled is not None,
        tags=config.tags,
        hints={
            label: value
            for label, value in (
                ("read-only", script.read_only),
                ("destructive", script.destructive),
                ("idempotent", script.idempotent),
                ("open world", script.open_world),
            )
            if value is not None
        },
        flags=[
            label
            for label, on in (
                ("asks for confirmation", script.requires_confirmation),
                ("interactive", script.interactive),
                ("has state", script.state),
            )
            if on
        ],
        schema=_pretty(schema),
        fields=fields,
    )


def _broken_row(key: str, compiled: CompiledTool | None, problem: str) -> ToolRow:
    return ToolRow(
        key=key, name=compiled.name if compiled else key, title=None, description="", dialect="?",
        script=compiled.script_path if compiled else None, enabled=compiled is not None,
        served=compiled is not None, problem=problem,
    )  # fmt: skip


def form_fields(
    schema: Mapping[str, Any], secrets: Iterable[str] = (), order: Iterable[str] = ()
) -> list[FormField]:
    """An input per property of a tool's JSON Schema, those named in `order` first (the
    compiled schema's are sorted); what it cannot type is a JSON field."""
    required = set(schema.get("required") or []) if isinstance(schema.get("required"), list) else set()
    secret = set(secrets)
    properties = dict(schema.get("properties") or {})
    ranks = {name: rank for rank, name in enumerate(order)}
    fields = []
    for name in sorted(properties, key=lambda name: ranks.get(name, len(ranks))):
        spec = properties[name]
        spec = spec if isinstance(spec, dict) else {}
        kind = _kind(spec, secret=name in secret)
        options = _options(spec) if kind == "choice" else []
        fields.append(
            FormField(
                name=name,
                kind=kind,
                required=name in required,
                description=str(spec.get("description", "")),
                default=_shown(spec["default"]) if "default" in spec else None,
                default_json=json.dumps(spec["default"]) if "default" in spec else None,
                minimum=_bound(spec, "minimum", "minLength"),
                maximum=_bound(spec, "maximum", "maxLength"),
                multiline=kind == "text" and "contentMediaType" in spec,
                options=options,
                title=str(spec.get("title", "")),
                input_type=INPUT_TYPES.get(str(spec.get("format")), "text"),
            )
        )
    return fields


def _kind(spec: Mapping[str, Any], *, secret: bool) -> str:
    json_type = spec.get("type")
    if _options(spec):
        return "choice"
    if json_type == "boolean":
        return "boolean"
    if json_type == "string":
        return "secret" if secret else "text"
    if json_type in ("integer", "number"):
        return str(json_type)
    return "json"  # arrays, objects, any, and whatever a whole JSON Schema says


def _options(spec: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(JSON value, label) of each value a choice may take: `enum` (labelled by the older
    elicitation `enumNames` if given), or a `oneOf` of `{"const": v, "title": label}`."""
    enum, names = spec.get("enum"), spec.get("enumNames")
    if isinstance(enum, list) and enum:
        labels = names if isinstance(names, list) and len(names) == len(enum) else enum
        return [(json.dumps(value), str(label)) for value, label in zip(enum, labels, strict=True)]
    one_of = spec.get("oneOf")
    if isinstance(one_of, list) and one_of and all(isinstance(o, dict) and "const" in o for o in one_of):
        return [(json.dumps(o["const"]), str(o.get("title", o["const"]))) for o in one_of]
    return []


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _bound(spec: Mapping[str, Any], number: str, length: str) -> float | None:
    value = spec.get(number, spec.get(length))
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _hints(tool: CompiledTool) -> dict[str, bool]:
    labels = {"read_only": "read-only", "destructive": "destructive", "idempotent": "idempotent"}
    labels["open_world"] = "open world"
    return {labels[key]: value for key, value in tool.hints.model_dump().items() if value is not None}


def _flags(tool: CompiledTool) -> list[str]:
    return ["asks for confirmation"] if tool.requires_confirmation else []


def _fields(schema: Mapping[str, Any], tool: CompiledTool) -> list[FormField]:
    """The form of a served tool, its parameters in the order they were declared."""
    secrets = [param.name for param in tool.parameters if param.secret]
    return form_fields(schema, secrets, order=[param.name for param in tool.parameters])


def _pretty(schema: Mapping[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False)
