"""The parameters of an argc command: its `@option`, `@flag` and `@arg` tags, and the
`@env` tags toolkiln cannot serve (warnings). Shared by the one-tool reader (`read.py`)
and the one-tool-per-`@cmd` reader (`commands.py`)."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from toolkiln.conventions.base import make_parameter
from toolkiln.errors import DiscoveryError
from toolkiln.runtimes.argc.tags import Command, Param

if TYPE_CHECKING:
    from toolkiln.model import Parameter

_INTEGER_NOTATIONS = {"INT", "INTEGER"}
_NUMBER_NOTATIONS = {"NUM", "NUMBER", "FLOAT"}


def parameters_of(command: Command, path: str, warnings: list[DiscoveryError]) -> list[Parameter]:
    """The parameters of one command's `@option`, `@flag` and `@arg` tags, in order."""
    parameters: list[Parameter] = []
    seen: dict[str, int] = {}
    for param in command.params:
        if param.kind == "env":
            continue
        name = re.sub(r"[-.:]", "_", param.name)
        if name in seen:
            raise DiscoveryError(
                f"{name!r} is already declared on line {seen[name]} (argc's variable argc_{name} "
                "would hold both)",
                path=path,
                line=param.line,
            )
        seen[name] = param.line
        fields = parameter_fields(param, name, path)
        if fields is None:
            warnings.append(
                DiscoveryError(
                    f"the optional {_label(param)} is not served: toolkiln cannot give it "
                    "several values per occurrence",
                    path=path,
                    line=param.line,
                )
            )
            continue
        parameters.append(make_parameter(path, param.line, **fields))
    return parameters


def parameter_fields(param: Param, name: str, path: str) -> dict[str, Any] | None:
    """The fields of the `Parameter` for one tag, None for an optional one that cannot be
    given (a `DiscoveryError` for such a required one: the tool is not published)."""
    if param.kind == "flag":
        return {"name": name, "type": "boolean", "description": param.description, "default": False,
                "option": param.long or param.short}  # fmt: skip
    several = len(param.notations) > 1 or any(n.endswith(("*", "+")) for n in param.notations)
    if several or (param.terminated and param.kind == "option"):
        if param.required:
            raise DiscoveryError(
                f"the required {_label(param)} takes several values per occurrence "
                f"({' '.join(f'<{n}>' for n in param.notations) or '~'}), which toolkiln cannot give it",
                path=path,
                line=param.line,
            )
        return None
    hinted = _hinted_type(param.notations[0] if param.notations else "")
    fields: dict[str, Any] = {
        "name": name,
        "description": param.description,
        "option": "" if param.kind == "arg" else (param.long or param.short),
    }
    if param.multiple or param.terminated:
        fields.update(type="array", items=hinted if param.choices is None else "string")
        if param.required:
            fields.update(required=True, min=1)
        if param.choices is not None:
            fields["description"] = _with_note(param.description, "each one of: " + ", ".join(param.choices))
        return fields
    fields["type"] = "string" if param.choices is not None else hinted
    if param.choices is not None:
        fields["enum"] = param.choices
    fields["required"] = param.required
    if param.default is not None and not param.required:
        default = _typed(param.default, fields["type"])
        if default is None:  # `--count=lots <INT>`: the notation was no type after all
            fields["type"], default = "string", param.default
        fields["default"] = default
    return fields


def _hinted_type(notation: str) -> str:
    word = notation.rstrip("?").upper()
    if word in _INTEGER_NOTATIONS:
        return "integer"
    if word in _NUMBER_NOTATIONS:
        return "number"
    return "string"


def _typed(text: str, param_type: str) -> Any:
    try:
        return int(text) if param_type == "integer" else float(text) if param_type == "number" else text
    except ValueError:
        return None


def _with_note(description: str, note: str) -> str:
    return f"{description} ({note})" if description else note[0].upper() + note[1:]


def _label(param: Param) -> str:
    return f"option {param.long or param.short}" if param.kind == "option" else f"argument {param.name}"


def env_warnings(envs: list[Param], path: str) -> list[DiscoveryError]:
    """Required `@env` variables are the server's to give, not the client's: say so when
    the environment discovery runs in lacks one."""
    return [
        DiscoveryError(
            f"needs the environment variable {env.name} (`@env {env.name}!`); set it where the "
            "server runs (and list it in the tool's confinement.pass_env when confined)",
            path=path,
            line=env.line,
        )
        for env in envs
        if env.required and env.name not in os.environ
    ]
