"""commander's declarations, read as text: `.option()`, `.requiredOption()`,
`.addOption(new Option(...).choices([...]))`, `.argument()`, `.arguments()`,
`.addArgument(new Argument(...))`, `.description()`, `.version()`.

    .option('-p, --port <number>', 'port', parseInt, 8080)   integer, default 8080
    .requiredOption('--name <name>', 'who')                  string, required
    .option('--tags <tags...>', 'tags')                      array of strings
    .option('--no-color', 'plain output')                    boolean `color`, default true
    .argument('<file>', 'input')  .argument('[more...]')     positionals, after `--`

Each subcommand (`.command('add <text>')`, `.addCommand(new Command('ls'))`) is a tool
of its own, with the program's options and its own (`node_cli_subcommands`); the program
is a tool too when it has an `.action()` of its own.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from toolkiln.conventions.javascript.calls import read_calls
from toolkiln.conventions.javascript.values import Call, Construct
from toolkiln.conventions.node_cli.params import (
    check_unique,
    default_of,
    enum_of,
    make_cli_parameter,
    parameter_name,
    parser_type,
    read_placeholders,
)
from toolkiln.conventions.node_cli.spec import CliSpec
from toolkiln.conventions.node_cli.subcommands import Target, read_each_command, split_commander
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.model import Parameter

_METHODS = frozenset(
    {
        "option", "requiredOption", "addOption", "argument", "arguments", "addArgument",
        "description", "summary", "version", "command", "addCommand", "executableDir",
        "action", "parse", "parseAsync",
    }
)  # fmt: skip
_FLAG = re.compile(r"--?[A-Za-z0-9][A-Za-z0-9_.-]*")
_NUMERIC_PLACEHOLDERS = {"number": "number", "num": "number", "float": "number", "int": "integer",
                         "integer": "integer", "count": "integer", "port": "integer"}  # fmt: skip
_BUILT_IN = {"help", "version"}


def read_commander(text: str, path: str) -> CliSpec:
    source = read_calls(text, _METHODS)
    spec = CliSpec()
    root, commands = split_commander(source, path, spec.warnings)
    _read_command(root.calls, text, path, spec)

    def read_one(command: Target, own: CliSpec) -> None:
        usage = command.usage.split(None, 1)[1:]
        calls = [Call("arguments", usage, command.line), *command.calls] if usage else command.calls
        _read_command(calls, text, path, own)

    read_each_command(spec, commands, path, read_one)
    spec.has_commands = any(
        call.method in ("command", "addCommand", "executableDir") for call in source.calls
    )
    spec.runs_alone = not spec.has_commands or any(call.method == "action" for call in root.calls)
    return spec


def _read_command(all_calls: list[Call], text: str, path: str, spec: CliSpec) -> None:
    """The parameters, description and version that `all_calls` declare, into `spec`."""
    calls = [call for call in all_calls if call.on_object and call.receiver not in ("Option", "Argument")]
    options: dict[str, dict[str, Any]] = {}
    positionals: list[dict[str, Any]] = []
    lines: dict[str, int] = {}
    for call in calls:
        first = call.args[0] if call.args else None
        if call.method in ("description", "summary") and isinstance(first, str) and not spec.description:
            spec.description = " ".join(first.split())
        elif call.method == "version" and isinstance(first, str | int | float):
            spec.version = str(first)
        elif call.method in ("option", "requiredOption", "addOption"):
            option = _option(call, path, spec.warnings, "makeOptionMandatory" in text)
            if option is not None:
                _merge(options, option)
                lines.setdefault(option["name"], call.line)
        elif call.method in ("argument", "arguments", "addArgument"):
            positionals += _arguments(call, path)
    parameters: list[Parameter] = []
    for option in options.values():
        fields = {key: value for key, value in option.items() if not key.startswith("_")}
        parameters.append(make_cli_parameter(path, option["_line"], **fields))
    for index, positional in enumerate(positionals):
        if positional["required"] and index and not positionals[index - 1]["required"]:
            raise DiscoveryError(
                f"the required argument {positional['name']!r} follows an optional one",
                path=path,
                line=positional["_line"],
            )
        lines.setdefault(positional["name"], positional["_line"])
        fields = {key: value for key, value in positional.items() if not key.startswith("_")}
        parameters.append(make_cli_parameter(path, positional["_line"], **fields))
    check_unique(parameters, path, lines)
    spec.parameters = parameters


def _option(
    call: Call, path: str, warnings: list[DiscoveryError], mandatory_somewhere: bool
) -> dict[str, Any] | None:
    """One option's parameter fields, from `.option(flags, desc, [parser], [default])` or
    `.addOption(new Option(flags, desc).choices(...).default(...)...)`. An option that
    cannot be read is left out, unless it may be required (then the tool is not published)."""
    required = call.method == "requiredOption"
    args = list(call.args)
    chained: list[Call] = []
    if call.method == "addOption":
        construct = args[0] if args else None
        if not (isinstance(construct, Construct) and construct.callee == "Option"):
            _unreadable(call, path, warnings, required=mandatory_somewhere)
            return None
        args, chained = list(construct.args), construct.calls
    flags = args[0] if args else None
    if not isinstance(flags, str):
        mandatory = any(link.method == "makeOptionMandatory" for link in chained)
        _unreadable(call, path, warnings, required=required or mandatory)
        return None
    description, parser, default = _described(args)
    choices, default, parser = _chained(chained, default, parser)
    for link in chained:
        if link.method == "makeOptionMandatory":
            required = (link.args[0] if link.args else None) is not False
    return _option_fields(flags, description, parser, default, choices, required, call.line, path)


def _described(args: list[Any]) -> tuple[str, Any, Any]:
    """`(flags, description, [parser,] default)`: the description, the parser and the default."""
    description = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
    parser = args[2] if len(args) > 2 and parser_type(args[2]) else None
    if parser is not None:
        return description, parser, args[3] if len(args) > 3 else None
    return description, None, args[2] if len(args) > 2 else None


def _chained(chained: list[Call], default: Any, parser: Any) -> tuple[Any, Any, Any]:
    """The choices, default and parser that `.choices()`, `.default()` and `.argParser()` set."""
    choices: Any = None
    for link in chained:
        value = link.args[0] if link.args else None
        if link.method == "choices":
            choices = value
        elif link.method == "default":
            default = value
        elif link.method == "argParser":
            parser = value
    return choices, default, parser


def _option_fields(
    flags: str,
    description: str,
    parser: Any,
    default: Any,
    choices: Any,
    required: bool,
    line: int,
    path: str,
) -> dict[str, Any] | None:
    words = _FLAG.findall(flags.split("<")[0].split("[")[0])
    long = next((word for word in words if word.startswith("--")), None)
    option = long or (words[0] if words else None)
    if option is None:
        raise DiscoveryError(f"cannot read the option flags {flags!r}", path=path, line=line)
    negated = option.startswith("--no-")
    name = parameter_name(option[5:] if negated else option.lstrip("-"))
    if name in _BUILT_IN:
        return None
    placeholders = read_placeholders(flags)
    fields: dict[str, Any] = {"name": name, "description": description, "option": option, "_line": line}
    if not placeholders:  # a flag
        fields["type"] = "boolean"
        fields["default"] = True if negated and default is None else default_of(default, "boolean")
        fields["required"] = False
        return fields
    placeholder = placeholders[0]
    value_type = (
        parser_type(parser)
        or _type_of_default(default)
        or _NUMERIC_PLACEHOLDERS.get(placeholder.name.lower(), "string")
    )
    if placeholder.variadic:
        fields.update(type="array", items=value_type, default=default_of(default, "array", value_type))
    else:
        fields.update(type=value_type, default=default_of(default, value_type))
        if default is not None and fields["default"] is None and default_of(default, "string") is not None:
            fields.update(type="string", default=default)  # `'auto'` for a `<number>`: a string after all
        fields["enum"] = enum_of(choices, value_type)
    fields["required"] = required and fields["default"] is None
    if fields["required"] and placeholder.variadic:
        fields["min"] = 1
    return fields


def _type_of_default(default: Any) -> str | None:
    if isinstance(default, bool):
        return None
    if isinstance(default, int):
        return "integer"
    if isinstance(default, float):
        return "number"
    return None


def _merge(options: dict[str, dict[str, Any]], option: dict[str, Any]) -> None:
    """`--color` and `--no-color` are one boolean: given as `--color`, or `--no-color`
    for false."""
    name = option["name"]
    known = options.get(name)
    if known is None:
        options[name] = option
        return
    if known["type"] == option["type"] == "boolean":
        positive = known if not known["option"].startswith("--no-") else option
        negative = option if positive is known else known
        if negative["option"].startswith("--no-") and positive is not negative:
            positive["default"] = positive.get("default")
            positive["description"] = positive["description"] or negative["description"]
            options[name] = positive


def _arguments(call: Call, path: str) -> list[dict[str, Any]]:
    """Positional arguments, given after `--`."""
    args = list(call.args)
    chained: list[Call] = []
    if call.method == "addArgument":
        construct = args[0] if args else None
        if not (isinstance(construct, Construct) and construct.callee == "Argument"):
            raise DiscoveryError(
                "cannot read this argument (`.addArgument()` with a `new Argument(...)` written in place)",
                path=path,
                line=call.line,
            )
        args, chained = list(construct.args), construct.calls
    spec = args[0] if args else None
    placeholders = read_placeholders(spec) if isinstance(spec, str) else []
    if not placeholders:
        raise DiscoveryError(
            f"cannot read the argument `.{call.method}()`: positionals cannot be skipped, so the "
            "tool is not published; write its name as a literal such as '<file>'",
            path=path,
            line=call.line,
        )
    description, parser, default = ("", None, None) if call.method == "arguments" else _described(args)
    choices, default, parser = _chained(chained, default, parser)
    required = placeholders[0].required
    for link in chained:
        if link.method in ("argOptional", "argRequired"):
            required = link.method == "argRequired"
    positionals = []
    for index, placeholder in enumerate(placeholders):
        value_type = parser_type(parser) or "string"
        fields: dict[str, Any] = {
            "name": parameter_name(placeholder.name),
            "description": description if index == 0 else "",
            "option": "--",
            "_line": call.line,
        }
        if placeholder.variadic:
            fields.update(type="array", items=value_type, default=default_of(default, "array", value_type))
        else:
            fields.update(
                type=value_type, default=default_of(default, value_type), enum=enum_of(choices, value_type)
            )
        is_required = (required if index == 0 else placeholder.required) and fields["default"] is None
        fields["required"] = is_required
        if is_required and placeholder.variadic:
            fields["min"] = 1
        positionals.append(fields)
    return positionals


def _unreadable(call: Call, path: str, warnings: list[DiscoveryError], *, required: bool) -> None:
    """A warning for an option left out; a `DiscoveryError` when it may be required."""
    message = f"cannot read the `.{call.method}()` on this line (its flags are not a literal string)"
    if required:
        raise DiscoveryError(
            f"{message}, and it is required: the tool is not published", path=path, line=call.line
        )
    warnings.append(DiscoveryError(f"{message}; the option is left out", path=path, line=call.line))
