"""The tools a Python command-line script's reading makes: its own, or one per subcommand.

A script with subcommands (`git`-style: `tool.py --db=x add --name=y`) is one tool per
subcommand, as argc's `@cmd` functions are: `notes.py`'s `add` is the tool `notes_add`,
with the script's own options (given before the word) and the subcommand's, each
required exactly as that subcommand requires it. A script that also runs without a
subcommand (click's `invoke_without_command=True`, typer's callback with it, argparse's
optional subparsers with a `set_defaults` on the main parser) is a tool too, under the
file's own name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolkiln.conventions.base import Declaration
from toolkiln.conventions.python_cli.read import Reading, free_name, usable_name
from toolkiln.conventions.subcommands import (
    before_the_word,
    subcommand_description,
    with_file_warnings,
    with_own_parameters,
)
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.model import Parameter


@dataclass
class Subcommand:
    """One subcommand of a script: its name on the command line, and what it takes."""

    name: str
    description: str
    line: int
    reading: Reading


def command_declarations(
    top: Reading, commands: list[Subcommand], description: str, line: int, *, with_main: bool
) -> list[Declaration]:
    """One tool per subcommand (`command` its word on the command line): the script's own
    options, given before the word, and the subcommand's, each required as that subcommand
    requires it; a name both use is the subcommand's prefixed with its name (`add_tag`).
    With `with_main` (the script also runs without a subcommand) the script's own options
    are a tool too, under the file's name. The file's warnings go with the first tool."""
    declarations: list[Declaration] = []
    if with_main:
        declarations.append(_declaration(description, top.parameters, top.conditions, []))
    early = before_the_word(top.parameters)
    for command in commands:

        def prefixed(name: str, taken: set[str], word: str = command.name) -> str:
            """`add_tag`: the script's own option of this name is another one."""
            return free_name(usable_name(f"{word}_{name}".replace("-", "_"), set()), taken)

        parameters, renamed = with_own_parameters(early, command.reading.parameters, prefixed)
        conditions = [*top.conditions, *(_renamed(c, renamed) for c in command.reading.conditions)]
        described = subcommand_description(description, command.description, command.name)
        declarations.append(
            _declaration(described, parameters, conditions, command.reading.warnings, command=command.name)
        )
    if not declarations:
        raise DiscoveryError(
            "none of its subcommands can be served (see the warnings), and one is needed",
            path=top.path,
            line=line,
        )
    return with_file_warnings(declarations, top.warnings)


def script_tool(reading: Reading, description: str) -> Declaration:
    """The tool of a script without subcommands (argparse, click, typer): what `reading` read."""
    return _declaration(description, reading.parameters, reading.conditions, reading.warnings)


def _declaration(
    description: str,
    parameters: list[Parameter],
    conditions: list[dict[str, Any]],
    warnings: list[DiscoveryError],
    command: str | None = None,
) -> Declaration:
    return Declaration(
        dialect="python",
        description=description,
        parameters=parameters,
        python_entry="script",
        warnings=list(warnings),
        input_schema=tool_schema(parameters, conditions),
        command=command,
    )


def tool_schema(parameters: list[Parameter], conditions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The input schema of a tool whose parameters carry conditions (a required mutually
    exclusive group); None when they carry none (build then makes the schema from the
    parameters)."""
    if not conditions:
        return None
    from toolkiln.schema import parameters_to_schema

    schema = parameters_to_schema(parameters)
    schema["allOf"] = conditions
    return schema


def _renamed(value: Any, names: dict[str, str]) -> Any:
    """A condition with its parameter names renamed (in `required` lists and `properties` keys)."""
    if isinstance(value, list):
        return [_renamed(item, names) for item in value]
    if not isinstance(value, dict):
        return value
    result: dict[str, Any] = {}
    for key, item in value.items():
        if key == "required":
            result[key] = [names.get(name, name) for name in item]
        elif key == "properties":
            result[key] = {names.get(name, name): _renamed(spec, names) for name, spec in item.items()}
        else:
            result[key] = _renamed(item, names)
    return result
