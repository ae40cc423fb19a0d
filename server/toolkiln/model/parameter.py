"""A tool's parameter, in the vocabulary every dialect is read into."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from toolkiln.vocabulary import (
    PARAM_NAME_PATTERN,
    OptionForm,
    ParamType,
    sensitive_env_reason,
    value_matches_type,
)

# Validation context key: the data was written by build, which checked it.
COMPILED = "compiled"


class Parameter(BaseModel):
    """One argument of a tool, in the vocabulary shared by every dialect.

    `min`/`max` mean the value for numbers, the length for strings and the item
    count for arrays (the `size` of seeds/000). `default: null` means no default.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    name: str
    type: ParamType = "string"
    description: str = ""
    required: bool = False
    default: Any = None
    enum: list[Any] | None = None
    # Suggested values (JSON Schema's `examples`): what completion offers, not a limit.
    examples: list[Any] | None = None
    # Mirrored into the HTTP header `Mcp-Param-<header>` by 2026-07-28 clients, so that
    # proxies and load balancers can route on it (the schema's `x-mcp-header`).
    header: str | None = None
    min: float | None = None
    max: float | None = None
    items: ParamType | None = None
    # A secret's value is redacted in the audit log.
    secret: bool = False
    # A string of several lines (a message, a document, code): its schema says it holds
    # text (`contentMediaType: text/plain`), and forms (the dashboard's) give it a text area.
    multiline: bool = False
    # A `path` string is checked against the tool's workspace_config before the script runs.
    kind: Literal["path"] | None = None
    # How a command-line script (argparse, click, typer) takes it: its option string
    # (`--search-term`; `--x/--no-x` for a flag with a negative form), or "" for a
    # positional argument, in order; `option_form` says how its value is written
    # (see `OptionForm`).
    option: str | None = None
    # How a Raycast script command gets it: "percent" is percent-encoded first (its
    # argument's `percentEncoded: true`), as Raycast does before the script runs.
    encoding: Literal["percent"] | None = None
    option_form: OptionForm | None = None
    # A tool that is one of a script's subcommands (its `command`): this is the script's
    # own option or argument, given before the subcommand's word (`--db=x add ...`).
    before_command: bool = False

    @field_validator("name")
    @classmethod
    def _check_name(cls, name: str) -> str:
        if not PARAM_NAME_PATTERN.match(name):
            raise ValueError(
                f"parameter name {name!r} must start with a letter or _ and contain only "
                "letters, digits, _ and - (at most 64 characters)"
            )
        reason = sensitive_env_reason(name)
        if reason is not None:
            raise ValueError(
                f"parameter name {name!r} would overwrite the environment variable {name} "
                f"of the script, and {reason}; rename the parameter (the script may still set "
                f"{name} itself from it)"
            )
        return name

    @model_validator(mode="after")
    def _check_consistency(self, info: ValidationInfo) -> Parameter:
        if info.context and info.context.get(COMPILED):
            return self  # build checked it when it compiled the catalog
        for problem in _parameter_problems(self):
            raise ValueError(f"parameter {self.name!r}: {problem}")
        return self

    @model_serializer(mode="wrap")
    def _drop_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Keep per-tool files short: a parameter lists only what it declares.
        data: dict[str, Any] = handler(self)
        for bound in ("min", "max"):  # 3, not 3.0, for a whole-number bound
            if isinstance(data.get(bound), float) and data[bound].is_integer():
                data[bound] = int(data[bound])
        return {
            key: value
            for key, value in data.items()
            if value is not None
            and (key, value) not in (("secret", False), ("multiline", False), ("before_command", False))
        }


_HEADER_TOKEN = re.compile(r"[A-Za-z0-9-]+")


def _parameter_problems(param: Parameter) -> list[str]:
    problems: list[str] = []
    # NaN and Infinity are not JSON: they would break every client that reads the schema.
    for key in ("min", "max"):
        bound = getattr(param, key)
        if bound is not None and not math.isfinite(bound):
            problems.append(f"'{key}' must be a finite number, not {bound!r}")
    for key in ("default", "enum", "examples"):
        if not _is_strict_json(getattr(param, key)):
            problems.append(f"'{key}' must be plain JSON (NaN and Infinity are not JSON numbers)")
    if problems:
        return problems
    if param.header is not None:
        if not _HEADER_TOKEN.fullmatch(param.header):
            problems.append(f"header {param.header!r} must be letters, digits and - only")
        if param.type not in ("string", "integer", "boolean"):
            problems.append("'header' applies only to string, integer and boolean parameters")
    if param.items is not None and param.type != "array":
        problems.append("'items' applies only to type array")
    if param.kind == "path" and param.type != "string":
        problems.append("a path is a string")
    if param.multiline and (param.type != "string" or param.kind == "path"):
        problems.append("'multiline' applies only to strings (and a path is one line)")
    if param.encoding is not None and param.type != "string":
        problems.append(f"'encoding' {param.encoding!r} applies only to strings")
    if param.before_command and param.option is None:
        problems.append("'before_command' applies only to a parameter with an 'option'")
    if param.option_form is not None and param.option is None:
        problems.append("'option_form' applies only to a parameter with an 'option'")
    if param.option_form in ("repeat", "list") and param.type != "array":
        problems.append(f"option_form {param.option_form!r} applies only to type array")
    if param.option_form == "count" and param.type != "integer":
        problems.append("option_form 'count' applies only to type integer")
    if param.option_form == "flag" and param.type != "boolean":
        problems.append("option_form 'flag' applies only to type boolean")
    if param.enum is not None:
        if not param.enum:
            problems.append("'enum' must list at least one value")
        if param.type in ("boolean", "array", "object"):
            problems.append(f"'enum' does not apply to type {param.type}")
        for value in param.enum:
            if not value_matches_type(value, param.type):
                problems.append(f"enum value {value!r} is not of type {param.type}")
    if param.min is not None or param.max is not None:
        if param.type not in ("string", "integer", "number", "array"):
            problems.append(f"'min'/'max' do not apply to type {param.type}")
        elif param.type in ("string", "array"):
            for bound in (param.min, param.max):
                if bound is not None and (bound < 0 or bound != int(bound)):
                    problems.append(f"a length limit must be a whole number >= 0, not {bound:g}")
        if param.min is not None and param.max is not None and param.min > param.max:
            problems.append(f"'min' ({param.min:g}) is greater than 'max' ({param.max:g})")
    if param.default is not None:
        problems.extend(f"default {param.default!r}: {p}" for p in value_problems(param, param.default))
    return problems


def _is_strict_json(value: Any) -> bool:
    if value is None or isinstance(value, str | int):  # the common answers (a bool is an int), at once
        return True
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


def value_problems(param: Parameter, value: Any) -> list[str]:
    """What is wrong with `value` as a value of `param` (empty when it is fine)."""
    if not value_matches_type(value, param.type):
        return [f"is not of type {param.type}"]
    if param.enum is not None and value not in param.enum:
        return [f"is not one of {param.enum}"]
    if param.type == "array" and param.items and not all(value_matches_type(v, param.items) for v in value):
        return [f"items must be of type {param.items}"]
    measure = len(value) if param.type in ("string", "array") else value
    unit = {"string": " characters", "array": " items"}.get(param.type, "")
    if param.min is not None and measure < param.min:
        return [f"is below the minimum of {param.min:g}{unit}"]
    if param.max is not None and measure > param.max:
        return [f"is above the maximum of {param.max:g}{unit}"]
    return []
