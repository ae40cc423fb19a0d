"""Subcommands of a Node.js command-line script, each a tool (as argc's `@cmd` functions
and Python's subparsers are): which declarations belong to which command.

    program.option('--db <file>')                                   the program's: every tool's
    program.command('add <text>').option('--tag <t...>')            `add`'s
    const rm = program.command('rm'); rm.argument('<id>')           `rm`'s
    program.addCommand(new Command('ls').option('--all'))           `ls`'s
    yargs.command('get <key>', 'Get one', (y) => y.option(...))     `get`'s: its builder's

commander's calls belong to the command their chain (or the variable it was assigned
to) has reached; yargs' to the command whose builder they are written in. Left out, each
with a warning: an executable subcommand (commander's `.command('x', 'description')`, a
separate file), a command of a command, one whose name or builder cannot be read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from toolkiln.conventions.javascript.calls import Source
from toolkiln.conventions.javascript.values import Call, Construct, Name
from toolkiln.conventions.node_cli.spec import CliSpec
from toolkiln.errors import DiscoveryError


@dataclass(eq=False)
class Target:
    """The program (`name` None) or one of its commands, and the calls that declare it."""

    name: str | None
    line: int
    calls: list[Call] = field(default_factory=list)
    usage: str = ""  # the command as declared: `add <text> [more...]`
    description: str = ""
    builder: Any = None  # yargs: an object of options
    nested: bool = False  # it has commands of its own: left out


def read_each_command(
    spec: CliSpec, commands: list[Target], path: str, read: Callable[[Target, CliSpec], None]
) -> None:
    """Each command read by `read` (commander's or yargs') into a spec of its own, added to
    `spec.commands`; one that cannot be served whole is left out with a warning, the others
    served."""
    for command in commands:
        own = CliSpec(name=command.name or "", line=command.line)
        try:
            read(command, own)
        except DiscoveryError as error:
            _leave_out(spec.warnings, f"the command {command.name!r}", error.reason, path, error.line)
            continue
        spec.commands.append(own)


_DROPPED = Target("(left out)", 0)


def split_commander(source: Source, path: str, warnings: list[DiscoveryError]) -> tuple[Target, list[Target]]:
    """The program's calls and each command's, in order."""
    root = Target(None, 0)
    parsed = {call.receiver for call in source.calls if call.method in ("parse", "parseAsync")}
    names: dict[str, Target] = {}
    chains: dict[int, Target] = {}
    for chain, (callee, args) in source.constructed.items():
        variable = source.assigned.get(chain)
        if callee == "Command" and variable and args and isinstance(args[0], str):
            named = root if variable in parsed else Target(args[0].split()[0], 0, usage=args[0])
            names[variable] = chains[chain] = named
    commands: list[Target] = []
    taken: list[tuple[int, int]] = []  # the arguments of `.addCommand(new Command(...)...)`
    for call in source.calls:
        if any(start < call.span[0] and call.span[1] < end for start, end in taken):
            continue
        target = chains.setdefault(call.chain, names.get(call.receiver, root))
        if call.method == "command":
            made = _command(call, target, root, path, warnings)
            if made is not None:
                commands += [made] if made is not _DROPPED else []
                chains[call.chain] = made
        elif call.method == "addCommand":
            added = _added(call, target, root, names, path, warnings)
            if added is not None:
                commands.append(added)
                taken.append(call.span)
        elif call.method == "executableDir":
            _leave_out(warnings, "`.executableDir()`", "its commands are separate files", path, call.line)
        elif target is not _DROPPED:
            target.calls.append(call)
        variable = source.assigned.get(call.chain)
        if variable:
            names[variable] = chains[call.chain]
    return root, [command for command in commands if not command.nested]


def _command(
    call: Call, target: Target, root: Target, path: str, warnings: list[DiscoveryError]
) -> Target | None:
    """What `.command(...)` makes: a command (its chain then declares it), None for an
    executable subcommand (the chain stays on the program), or `_DROPPED`."""
    first = call.args[0] if call.args else None
    usage = first if isinstance(first, str) else ""
    what = f"the command {usage.split()[0]!r}" if usage.split() else "a command"
    if len(call.args) > 1 and isinstance(call.args[1], str):
        _leave_out(warnings, what, "an executable subcommand (a separate file)", path, call.line)
        return None
    if target is _DROPPED:
        return _DROPPED
    if target is not root:
        target.nested = True
        _leave_out(warnings, f"the command {target.name!r}", "it has commands of its own", path, call.line)
        return _DROPPED
    if not usage.split():
        _leave_out(warnings, what, "its name is not a literal string", path, call.line)
        return _DROPPED
    return Target(usage.split()[0], call.line, usage=usage)


def _added(
    call: Call,
    target: Target,
    root: Target,
    names: dict[str, Target],
    path: str,
    warnings: list[DiscoveryError],
) -> Target | None:
    """The command `.addCommand(x)` adds, when it can be read."""
    added = call.args[0] if call.args else None
    if target is not root:
        target.nested = True
        _leave_out(warnings, f"the command {target.name!r}", "it has commands of its own", path, call.line)
        return None
    if (
        isinstance(added, Construct)
        and added.callee == "Command"
        and added.args
        and isinstance(added.args[0], str)
    ):
        usage = added.args[0]
        inner = [link for link in added.calls if link.method in ("command", "addCommand")]
        if inner:
            _leave_out(
                warnings, f"the command {usage.split()[0]!r}", "it has commands of its own", path, call.line
            )
            return None
        return Target(usage.split()[0], call.line, added.calls, usage=usage)
    if isinstance(added, Name) and added.dotted in names and names[added.dotted] is not root:
        command = names[added.dotted]
        command.line = command.line or call.line
        return command
    _leave_out(
        warnings,
        "the command this `.addCommand()` adds",
        "it is built where it cannot be read",
        path,
        call.line,
    )
    return None


def split_yargs(source: Source, path: str, warnings: list[DiscoveryError]) -> tuple[list[Call], list[Target]]:
    """The program's calls (a default `$0` command's builder included) and each command's."""
    commands: list[tuple[Target, tuple[int, int]]] = []
    for call in source.calls:
        if not call.on_object or call.method not in ("command", "commandDir"):
            continue
        if any(start < call.span[0] and call.span[1] < end for _, (start, end) in commands):
            owner = next(c for c, (start, end) in commands if start < call.span[0] and call.span[1] < end)
            owner.nested = True
            _leave_out(warnings, f"the command {owner.name!r}", "it has commands of its own", path, call.line)
            continue
        if call.method == "commandDir":
            _leave_out(warnings, "`.commandDir()`", "its commands are separate files", path, call.line)
            continue
        command = _yargs_command(call, path, warnings)
        if command is not None:
            commands.append((command, call.span))
    root: list[Call] = []
    for call in source.calls:
        home = next((c for c, (start, end) in commands if start < call.span[0] and call.span[1] < end), None)
        if home is not None:
            home.calls.append(call)
        elif all(call.span != span for _, span in commands):
            root.append(call)
    return root, [command for command, _ in commands if not command.nested]


def _yargs_command(call: Call, path: str, warnings: list[DiscoveryError]) -> Target | None:
    """`.command('get <key>', 'desc', builder, handler)` or `.command({command, describe,
    builder})` as a command; None for the default command (`$0`, the program's own) and
    for one that cannot be read (left out, with a warning)."""
    args = list(call.args)
    first = args[0] if args else None
    if isinstance(first, dict):
        module = first
        first = module.get("command")
        args = [
            first,
            module.get("describe", module.get("description", module.get("desc"))),
            module.get("builder"),
        ]
    if isinstance(first, list):
        first = first[0] if first else None
    if not isinstance(first, str) or not first.split():
        _leave_out(warnings, "a command", "its name is not a literal string", path, call.line)
        return None
    name = first.split()[0]
    if name in ("$0", "*"):
        return None
    builder = args[2] if len(args) > 2 else None
    description = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
    return Target(name, call.line, usage=first, description=description, builder=builder)


def _leave_out(warnings: list[DiscoveryError], what: str, why: str, path: str, line: int | None) -> None:
    warnings.append(DiscoveryError(f"{what} is left out: {why}", path=path, line=line))
