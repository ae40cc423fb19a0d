"""yargs' declarations, read as text, in both of its styles:

    yargs(hideBin(process.argv))
      .usage('Greet someone')
      .command('$0 <name> [titles..]', 'greet', (y) => y.positional('name', { type: 'string' }))
      .option('loud', { alias: 'l', type: 'boolean', describe: 'shout' })
      .options({ times: { type: 'number', default: 1, choices: [1, 2, 3] } })
      .parse()

    require('yargs').demandOption(['n']).alias('n', 'name').describe('n', 'who').argv

The default command's positionals (`$0 <name> [titles..]`) are given first, each
one word, before the options (yargs does not read words after `--` as them). Without
such a command, `.demandCommand(n)` asks for `args`: the words yargs keeps in `argv._`,
given after `--`. Each subcommand (`.command('get <key>', 'desc', builder)`) is a tool of
its own, with the program's options and its own (`node_cli_subcommands`): its
positionals given first after its word, its builder's options (an object, or the calls
of a builder function) after them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolkiln.conventions.javascript.calls import read_calls
from toolkiln.conventions.javascript.values import Call, Name
from toolkiln.conventions.node_cli.params import check_unique, make_cli_parameter, read_placeholders
from toolkiln.conventions.node_cli.spec import CliSpec
from toolkiln.conventions.node_cli.subcommands import Target, read_each_command, split_yargs
from toolkiln.conventions.node_cli.yargs_params import aliases_of, description_of, make_yargs_parameter
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.model import Parameter

_KEYED = {"alias", "describe", "default", "choices", "demandOption", "demand", "require", "required"}
_TYPED = {"boolean", "string", "number", "array", "count"}
_METHODS = frozenset(
    _KEYED | _TYPED | {"option", "options", "positional", "command", "commandDir", "usage", "scriptName",
                       "version", "demandCommand", "epilogue", "epilog"}
)  # fmt: skip
_BUILT_IN = {"help", "version"}


def read_yargs(text: str, path: str) -> CliSpec:
    source = read_calls(text, _METHODS)
    spec = CliSpec()
    root, commands = split_yargs(source, path, spec.warnings)
    _read_command(root, path, spec, commands=bool(commands))

    def read_one(command: Target, own: CliSpec) -> None:
        if isinstance(command.builder, Name):
            raise DiscoveryError(
                f"its options are built by {command.builder.dotted}, which cannot be read here",
                path=path,
                line=command.line,
            )
        usage = " ".join(["$0", *command.usage.split()[1:]])
        default = Call("command", [usage, command.description, command.builder], command.line)
        _read_command([default, *command.calls], path, own, commands=False)

    read_each_command(spec, commands, path, read_one)
    spec.has_commands = any(
        call.on_object and (call.method == "commandDir" or (call.method == "command" and call not in root))
        for call in source.calls
    )
    spec.runs_alone = not spec.has_commands or any(call.method == "command" for call in root)
    return spec


def _read_command(calls: list[Call], path: str, spec: CliSpec, *, commands: bool) -> None:
    """The parameters, description and version that `calls` declare, into `spec`; with
    `commands`, `.demandCommand()` asks for a command, not for words."""
    keys: dict[str, dict[str, Any]] = {}  # option key -> its settings, as yargs merges them
    lines: dict[str, int] = {}
    positionals: list[dict[str, Any]] = []
    demanded_words = 0
    usage = ""
    for call in calls:
        first = call.args[0] if call.args else None
        if not call.on_object:  # `require('yargs')`, not `.require('name')`
            continue
        if call.method == "commandDir" or (call.method == "command" and not _is_default(first)):
            continue  # a subcommand: its own tool
        if call.method == "command":
            positionals = _default_command(call, keys, lines, positionals)
            spec.description = spec.description or _command_description(call)
        elif call.method in ("option", "positional") and isinstance(first, str):
            _settle(keys, lines, first, call.args[1] if len(call.args) > 1 else {}, call.line)
        elif call.method == "options" and isinstance(first, dict):
            for key, settings in first.items():
                _settle(keys, lines, key, settings, call.line)
        elif call.method in _KEYED | _TYPED:
            _keyed(call, keys, lines)
        elif call.method == "demandCommand" and not commands:
            demanded_words = first if isinstance(first, int) and not isinstance(first, bool) else 1
        elif call.method == "usage" and isinstance(first, str) and not usage:
            usage = first
        elif (
            call.method == "version" and isinstance(first, str | int | float) and not isinstance(first, bool)
        ):
            spec.version = str(first)
    spec.description = spec.description or _prose(usage)
    keys = _merge_aliases(keys, lines)
    positional_names = {positional["name"] for positional in positionals}
    parameters: list[Parameter] = []
    for positional in positionals:
        settings = keys.get(positional["name"], {})
        parameters.append(
            make_yargs_parameter(
                path,
                lines.get(positional["name"], positional["_line"]),
                positional["name"],
                settings,
                positional,
            )
        )
    if demanded_words and not positionals:
        parameters.append(
            make_cli_parameter(
                path, 1, name="args", type="array", items="string", required=True, min=demanded_words,
                option="--", description="the words the script reads as its arguments",
            )
        )  # fmt: skip
    for key, settings in keys.items():
        if key in positional_names or key in _BUILT_IN:
            continue
        parameters.append(make_yargs_parameter(path, lines[key], key, settings, None))
    check_unique(parameters, path, lines)
    spec.parameters = parameters


def _is_default(command: Any) -> bool:
    """`$0`, `*` or `$0 <file>`: the program's own command, not a subcommand."""
    if isinstance(command, list):
        command = command[0] if command else None
    if isinstance(command, dict):
        command = command.get("command")
    return isinstance(command, str) and command.split(" ", 1)[0] in ("$0", "*")


def _command_description(call: Call) -> str:
    """`.command('$0', 'desc', ...)` or `.command({command: '$0', describe: 'desc'})`."""
    first = call.args[0] if call.args else None
    if isinstance(first, dict):
        return description_of(first)
    second = call.args[1] if len(call.args) > 1 else None
    return " ".join(second.split()) if isinstance(second, str) else ""


def _default_command(
    call: Call, keys: dict[str, dict[str, Any]], lines: dict[str, int], known: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The positionals of `.command('$0 <file> [more..]', desc, builder)`; an object builder's options."""
    command = call.args[0]
    builder = call.args[2] if len(call.args) > 2 else None
    if isinstance(command, list):
        command = command[0]
    if isinstance(command, dict):
        command, builder = command.get("command", "$0"), command.get("builder")
    if isinstance(builder, dict):
        for key, settings in builder.items():
            _settle(keys, lines, key, settings, call.line)
    positionals = [
        {
            "name": placeholder.name,
            "required": placeholder.required,
            "variadic": placeholder.variadic,
            "_line": call.line,
        }
        for placeholder in read_placeholders(str(command))
    ]
    return positionals or known


def _settle(
    keys: dict[str, dict[str, Any]], lines: dict[str, int], key: str, settings: Any, line: int
) -> None:
    entry = keys.setdefault(key, {})
    lines.setdefault(key, line)
    if isinstance(settings, dict):
        for name, value in settings.items():
            entry.setdefault(name, value)


def _keyed(call: Call, keys: dict[str, dict[str, Any]], lines: dict[str, int]) -> None:
    """The older style: `.alias('n', 'name')`, `.default({n: 1})`, `.boolean(['a', 'b'])`,
    `.demandOption(['n'])`, `.describe('n', 'who')`."""
    method = call.method
    first = call.args[0] if call.args else None
    second = call.args[1] if len(call.args) > 1 else None
    pairs: list[tuple[str, Any]] = []
    if isinstance(first, dict):
        pairs = list(first.items())
    elif isinstance(first, list):
        pairs = [
            (key, second if method in ("alias", "describe", "default", "choices") else True)
            for key in first
            if isinstance(key, str)
        ]
    elif isinstance(first, str):
        value = second if len(call.args) > 1 else True
        if method in ("demandOption", "demand", "require", "required"):
            value = True  # the second argument is the message
        pairs = [(first, value)]
    for key, value in pairs:
        if method in _TYPED:
            _settle(keys, lines, key, {"type": method} if value is not False else {}, call.line)
        elif method in ("demand", "require", "required", "demandOption"):
            _settle(keys, lines, key, {"demandOption": bool(value)}, call.line)
        else:
            _settle(keys, lines, key, {method: value}, call.line)


def _merge_aliases(keys: dict[str, dict[str, Any]], lines: dict[str, int]) -> dict[str, dict[str, Any]]:
    """`.count('verbose').alias('v', 'verbose')` makes `v` and `verbose` one option: kept
    under its first long name, with the settings of both."""
    merged: dict[str, dict[str, Any]] = {}
    home: dict[str, str] = {}  # any name of an option -> the key it is kept under
    for key, settings in keys.items():
        group = [key, *aliases_of(settings)]
        owner = next((home[name] for name in group if name in home), None)
        if owner is None:
            owner = next((name for name in group if len(name) > 1 and name in keys), key)
            merged[owner] = {}
            lines[owner] = min(lines[name] for name in group if name in lines)
        for name in group:
            home.setdefault(name, owner)
        for setting, value in settings.items():
            if setting == "alias":
                continue
            merged[owner].setdefault(setting, value)
        merged[owner]["alias"] = sorted({*aliases_of(merged[owner]), *group} - {owner})
    return merged


def _prose(usage: str) -> str:
    """The words of a `.usage()` text that are not a syntax line (`$0 <file> [options]`)."""
    kept = [
        line.strip()
        for line in usage.splitlines()
        if line.strip() and "$0" not in line and not line.strip().lower().startswith("usage")
    ]
    return " ".join(kept)
