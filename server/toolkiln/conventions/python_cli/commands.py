"""What click and typer scripts share, read with `ast` (never imported): their commands
(`Command`: a function, its name on the command line, its parameters, a group's
subcommands), which command the file calls when it runs, the tool or tools that command
declares (one per subcommand of a group), and adding a parameter to a command.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from toolkiln.conventions.base import Declaration, NotATool
from toolkiln.conventions.python_cli.read import (
    Reading,
    first_paragraph,
    is_main_guard,
)
from toolkiln.conventions.python_cli.tools import Subcommand, command_declarations, script_tool
from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import value_matches_type


@dataclass
class Command:
    """A command of a click or typer script: its name on the command line, what it takes,
    and (for a group) its subcommands."""

    function: str
    name: str
    description: str
    line: int
    reading: Reading
    group: bool = False
    parent: str | None = None
    optional_command: bool = False
    children: list[Command] = field(default_factory=list)


def called_commands(module: ast.Module, names: set[str]) -> list[tuple[str, int]]:
    """The commands called when the file runs: `cli()`, `cli.main()`, `typer.run(main)`,
    at module level or under `if __name__ == "__main__":`."""
    found = []
    for node in module.body:
        if not (is_main_guard(node) or isinstance(node, ast.Expr | ast.Assign)):
            continue
        for inner in ast.walk(node):
            if not isinstance(inner, ast.Call):
                continue
            function = inner.func
            if isinstance(function, ast.Attribute) and function.attr == "main":
                function = function.value
            if isinstance(function, ast.Name) and function.id in names:
                found.append((function.id, inner.lineno))
            elif isinstance(function, ast.Attribute) and function.attr == "run" and inner.args:
                target = inner.args[0]
                if isinstance(target, ast.Name) and target.id in names:
                    found.append((target.id, inner.lineno))
    return found


def declare_commands(
    commands: dict[str, Command], entries: list[tuple[str, int]], path: str, docstring: str, framework: str
) -> list[Declaration]:
    """The tool of the command the script runs; for a group, one tool per subcommand (see
    `python_cli/tools.py`), and the group's own when it runs without one."""
    if not entries:
        raise NotATool(
            f"a Python library: it defines {framework} commands, but nothing calls one when the "
            'file is run (no `if __name__ == "__main__":` calling it)',
            kind="library",
        )
    names = {name for name, _ in entries}
    if len(names) > 1:
        raise DiscoveryError(
            f"calls several commands when it runs ({', '.join(sorted(names))}): which one is the tool "
            "cannot be told",
            path=path,
            line=entries[0][1],
        )
    entry = commands[entries[0][0]]
    for command in commands.values():
        if command.parent in commands and command is not entry:
            commands[command.parent].children.append(command)
    reading = entry.reading
    description = entry.description or first_paragraph(docstring)
    if not entry.group:
        return [script_tool(reading, description)]
    subcommands = _leaves(entry, "", reading, path, {id(entry)})
    return command_declarations(
        reading, subcommands, description, entry.line, with_main=entry.optional_command
    )


MAX_DEPTH = 8  # groups inside groups: deeper is no command line a person types


def _leaves(group: Command, prefix: str, reading: Reading, path: str, seen: set[int]) -> list[Subcommand]:
    """Each leaf command under `group`, its words on the command line from the top
    (`users create`): a group inside a group gives one tool per leaf. A nested group
    that takes options of its own (passed between its word and the leaf's) is left out
    with a warning: toolkiln passes a tool's options before its command words or after."""
    found: list[Subcommand] = []
    for child in sorted(group.children, key=lambda c: c.line):
        words = f"{prefix}{child.name}"
        if not child.group:
            found.append(Subcommand(words, child.description, child.line, child.reading))
            continue
        why = (
            "it has options of its own between its word and its subcommands'"
            if child.reading.parameters
            else "groups nest too deep"
            if len(seen) >= MAX_DEPTH or id(child) in seen
            else ""
        )
        if why:
            reading.warnings.append(
                DiscoveryError(f"subcommand {words!r} left out: {why}", path=path, line=child.line)
            )
            continue
        leaves = _leaves(child, f"{words} ", reading, path, seen | {id(child)})
        if not leaves and not child.children:
            reading.warnings.append(
                DiscoveryError(
                    f"subcommand {words!r} left out: it has no commands", path=path, line=child.line
                )
            )
        found += leaves
    return found


def add_parameter(reading: Reading, line: int, fields: dict[str, Any], what: str) -> None:
    """Add a parameter; a default the type cannot hold is dropped (the script keeps its own)."""
    if fields.get("required"):
        fields["default"] = None
    if fields.get("default") is not None and not value_matches_type(fields["default"], fields["type"]):
        fields["default"] = None
    if any(param.name == fields["name"] for param in reading.parameters):
        reading.cannot_represent(
            what, f"its name {fields['name']!r} is taken", line, required=bool(fields["required"])
        )
        return
    fields = {key: value for key, value in fields.items() if value is not None}
    try:
        reading.add(line, **fields)
    except DiscoveryError:
        fields.pop("default", None)
        fields.pop("enum", None)
        reading.add(line, **fields)
