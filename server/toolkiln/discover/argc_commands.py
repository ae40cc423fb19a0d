"""An argc script with `@cmd` functions: one tool, whose `command` parameter picks the
function, with every command's parameters.

Why one tool and not one per command: discovery makes one tool of one file (its name,
its config, its fingerprint). So that no call can leave out what a command requires,
the tool's JSON Schema says, per command, which parameters it requires and which it
takes (`allOf` of `if`/`then`); the tool's description lists the commands.
A parameter some commands lack carries no schema default (defaults are filled in for
every call, and would reach a command that rejects them): the script's own default
applies, and the description says it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolkiln.discover.argc import _env_warnings, parameters_of
from toolkiln.discover.base import Declaration, make_parameter
from toolkiln.errors import DiscoveryError
from toolkiln.runtimes.argc.tags import Command, Script

if TYPE_CHECKING:
    from toolkiln.model import Parameter

COMMAND_PARAMETER_NAMES = ("command", "subcommand", "argc_command")


def command_declaration(
    script: Script, commands: list[Command], root: list[Parameter], path: str, warnings: list[DiscoveryError]
) -> Declaration:
    from toolkiln.schema import parameters_to_schema

    owned: dict[str, list[Parameter]] = {}
    for command in commands:
        warnings += _env_warnings(command.find("env"), path)
        owned[command.name] = parameters_of(command, path, warnings)
    default = next((c.name for c in commands if "default-subcommand" in c.metas), None)
    runs_main = "main" in script.functions or default is not None
    merged = _merge(root, owned, path, commands, with_main="main" in script.functions and default is None)
    taken = {param.name for param in merged}
    selector = next((n for n in COMMAND_PARAMETER_NAMES if n not in taken), None)
    if selector is None:
        raise DiscoveryError(
            f"has parameters named {', '.join(COMMAND_PARAMETER_NAMES)}: none is left for the command",
            path=path,
        )
    selector_param = make_parameter(
        path,
        commands[0].line,
        name=selector,
        type="string",
        enum=[command.name for command in commands],
        required=not runs_main,
        description="The command to run" + ("" if not runs_main else f" (default: {default or 'main'})"),
        # No option string: the builder passes it first, as argc's subcommand word.
    )
    parameters = [selector_param, *merged]
    schema = parameters_to_schema(parameters)
    schema["allOf"] = [
        _command_rule(selector, command.name, root, owned[command.name]) for command in commands
    ]
    if "main" in script.functions and default is None:
        schema["allOf"].append(_main_rule(selector, root))
    return Declaration(
        dialect="argc",
        description=_description(script.root.describe, commands),
        parameters=parameters,
        version=script.version,
        input_schema=schema,
        warnings=warnings,
    )


def _merge(
    root: list[Parameter],
    owned: dict[str, list[Parameter]],
    path: str,
    commands: list[Command],
    *,
    with_main: bool,
) -> list[Parameter]:
    """Root parameters, then each command's: one parameter per name, the same in every
    command that has it; not required and without a default unless every command (and
    `main`, when no command is given) has it so."""
    merged: dict[str, Parameter] = {param.name: param for param in root}
    users: dict[str, list[str]] = {}
    for command, params in owned.items():
        for param in params:
            users.setdefault(param.name, []).append(command)
            first = merged.get(param.name)
            if first is None:
                merged[param.name] = param
            elif param.name in {p.name for p in root} or _shape(first) != _shape(param):
                line = next(c.line for c in commands if c.name == command)
                raise DiscoveryError(
                    f"command {command!r} declares {param.name!r} differently from another command "
                    "(or from the script's own options); toolkiln serves the file as one tool with "
                    "one parameter per name: give them one shape, or rename one",
                    path=path,
                    line=line,
                )
    result = []
    for name, param in merged.items():
        using = users.get(name)
        if using is None or (len(using) == len(owned) and not with_main):
            result.append(param if using is None or _everywhere_required(name, owned) else _loosened(param))
            continue
        note = f"for command{'s' if len(using) > 1 else ''} {', '.join(using)}"
        if param.default is not None and param.type != "boolean":
            note += f"; default: {param.default}"
        description = f"{param.description} ({note})" if param.description else note[0].upper() + note[1:]
        result.append(_loosened(param, description=description))
    return result


def _shape(param: Parameter) -> tuple[Any, ...]:
    return (param.type, param.items, param.enum, param.option)


def _everywhere_required(name: str, owned: dict[str, list[Parameter]]) -> bool:
    return all(any(p.name == name and p.required for p in params) for params in owned.values())


def _loosened(param: Parameter, **changes: Any) -> Parameter:
    keep_default = param.type == "boolean"  # a flag's `false` is never passed on
    return param.model_copy(
        update={"required": False, "min": None if param.type == "array" else param.min, **changes}
        | ({} if keep_default else {"default": None})
    )


def _command_rule(selector: str, name: str, root: list[Parameter], own: list[Parameter]) -> dict[str, Any]:
    allowed = {selector: True, **{p.name: True for p in root}, **{p.name: True for p in own}}
    then: dict[str, Any] = {"properties": allowed, "additionalProperties": False}
    required = [p.name for p in [*root, *own] if p.required]
    if required:
        then["required"] = required
    for param in own:
        if param.type == "array" and param.required:
            then["properties"][param.name] = {"minItems": 1}
    return {"if": {"properties": {selector: {"const": name}}, "required": [selector]}, "then": then}


def _main_rule(selector: str, root: list[Parameter]) -> dict[str, Any]:
    """Without a command the script's `main` runs, which takes only the root parameters."""
    return {
        "if": {"not": {"required": [selector]}},
        "then": {"properties": {p.name: True for p in root}, "additionalProperties": False},
    }


def _description(describe: str, commands: list[Command]) -> str:
    lines = [describe.strip()] if describe.strip() else []
    lines.append("Commands:")
    for command in commands:
        text = command.describe.strip().replace("\n", "\n  ")
        lines.append(f"- {command.name}" + (f": {text}" if text else ""))
    return "\n".join(lines)
