"""argparse scripts, read with `ast` (never imported): where the parser is built (module
level, under `if __name__ == "__main__":`, in `main()` or a `build_parser()` helper), and
what each `add_argument` call declares.

The parser objects are followed by name through the file (`python_parsers`). An
`add_argument` that cannot be tied to a parser, or whose flags are not literal, could be
a required argument: the tool is then refused rather than served without it.
"""

from __future__ import annotations

import ast
from typing import Any

from toolkiln.conventions.base import Declaration
from toolkiln.conventions.python_cli.argument import read_argument
from toolkiln.conventions.python_cli.parsers import Parser, ParserTrace
from toolkiln.conventions.python_cli.read import (
    Reading,
    check_runnable,
    first_paragraph,
)
from toolkiln.conventions.python_cli.tools import Subcommand, command_declarations, script_tool
from toolkiln.errors import DiscoveryError


def read_argparse(module: ast.Module, path: str, docstring: str) -> list[Declaration]:
    """The tool an argparse script declares, or one per subcommand (`DiscoveryError` when
    none can be served whole)."""
    check_runnable(module, "argparse")
    files = ParserTrace(module, path)
    root = files.root_parser()
    reading = Reading(path, files.constants)
    reading.warnings += files.warnings
    _read_parser(files, root, reading)
    description = root.description or first_paragraph(docstring)
    if root.subparsers is None:
        return [script_tool(reading, description)]
    commands = []
    for parser in root.subparsers.commands:
        command_reading = Reading(path, files.constants)
        try:  # a subcommand that cannot be served whole is left out
            if parser.subparsers is not None:
                raise DiscoveryError("it has subcommands of its own", path=path, line=parser.call.lineno)
            _read_parser(files, parser, command_reading)
        except DiscoveryError as error:
            reading.warnings.append(
                DiscoveryError(
                    f"subcommand {parser.name!r} left out: {error.reason}", path=path, line=error.line
                )
            )
            continue
        commands.append(Subcommand(parser.name, parser.description, parser.call.lineno, command_reading))
    # Without a subcommand, argparse runs the script with its main parser's defaults: a
    # tool when the subcommand is optional and the main parser sets what runs (the `func`
    # each subcommand sets, `parser.set_defaults(func=default)`).
    dispatch = {"func"}.union(*(parser.defaults for parser in root.subparsers.commands))
    with_main = not root.subparsers.required and bool(root.defaults & dispatch)
    return command_declarations(reading, commands, description, root.call.lineno, with_main=with_main)


def _read_parser(files: ParserTrace, parser: Parser, reading: Reading, seen: set[int] | None = None) -> None:
    """Read the parser's arguments (its parents' first) into `reading`, with a condition
    for each required mutually exclusive group."""
    seen = set() if seen is None else seen
    if id(parser) in seen:
        return
    seen.add(id(parser))
    if parser.escaped is not None:
        raise DiscoveryError(
            f"its parser is handed to {parser.escaped}, defined elsewhere, which may add arguments "
            "that cannot be read here",
            path=files.path,
            line=parser.call.lineno,
        )
    for parent_expr in parser.parents:
        for parent in files.resolve(parent_expr, parser.call.lineno):
            if isinstance(parent, Parser):
                _read_parser(files, parent, reading, seen)
    groups: dict[int, set[tuple[int, int]]] = {}
    for call, group in parser.arguments:
        in_required_group = group is not None and group.exclusive and group.required
        read_argument(call, reading, in_required_group=in_required_group)
        if in_required_group:
            groups.setdefault(id(group), set()).add((call.lineno, call.col_offset))
    for origins in groups.values():
        members = []
        for param, origin in zip(reading.parameters, reading.origins, strict=True):
            if origin in origins:
                member: dict[str, Any] = {"required": [param.name]}
                if param.option_form == "flag":  # a flag counts when given
                    member["properties"] = {param.name: {"const": not param.default}}
                members.append(member)
        if members:  # argparse itself refuses two of them
            reading.conditions.append({"anyOf": members})
