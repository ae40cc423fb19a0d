"""One tool per subcommand: the pieces every convention with subcommands shares (argc's
`@cmd`, Python's argparse/click/typer/docopt/fire, Node's commander/yargs).

The loop is written once here: a subcommand's parameters are the program's, given before
its word, then its own (`with_own_parameters`); its description falls back on the
program's (`subcommand_description`); the file's warnings are said once, by its first
tool (`with_file_warnings`, also for files of one tool).

What differs stays with each convention, on purpose: which of the program's options a
subcommand takes and how a name both use is told apart follow the library (argc lets the
command's own option hide the script's, so it does not join them here; Python and Node
prefix the subcommand's with its name, each with its own rule, the `rename` they pass),
and the names are what users' configs hold.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolkiln.conventions.base import Declaration
    from toolkiln.errors import DiscoveryError
    from toolkiln.model import Parameter


def subcommand_description(program: str, own: str, word: str) -> str:
    """A subcommand's description: its own, else the program's with its word, else its word."""
    return own or (f"{program} ({word})" if program else word)


def before_the_word(parameters: Sequence[Parameter]) -> list[Parameter]:
    """The program's own options as each subcommand's tool takes them: given before its word."""
    return [param.model_copy(update={"before_command": True}) for param in parameters]


def with_own_parameters(
    program: Sequence[Parameter], own: Sequence[Parameter], rename: Callable[[str, set[str]], str]
) -> tuple[list[Parameter], dict[str, str]]:
    """A subcommand's parameters: the program's (`before_the_word`), then its own; an own
    name the program's already uses becomes `rename(name, taken)` (each convention names
    it as its library lets users tell them apart). Also each own name's new one."""
    parameters = list(program)
    taken = {param.name for param in program}
    renamed: dict[str, str] = {}
    for param in own:
        name = rename(param.name, taken) if param.name in taken else param.name
        taken.add(name)
        renamed[param.name] = name
        parameters.append(param.model_copy(update={"name": name}) if name != param.name else param)
    return parameters, renamed


def with_file_warnings(
    declarations: list[Declaration], warnings: Sequence[DiscoveryError], *, after: bool = False
) -> list[Declaration]:
    """The tools of one file, with the file's own warnings said once, by its first tool
    (before that tool's own, or `after` them)."""
    if not warnings or not declarations:
        return declarations
    first = declarations[0]
    joined = [*first.warnings, *warnings] if after else [*warnings, *first.warnings]
    return [dataclasses.replace(first, warnings=joined), *declarations[1:]]
