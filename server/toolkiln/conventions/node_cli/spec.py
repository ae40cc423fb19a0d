"""What a Node library reader (commander, yargs, util.parseArgs) hands the node_cli reader."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolkiln.errors import DiscoveryError
    from toolkiln.model import Parameter


@dataclass
class CliSpec:
    """What a library reader found: the declaration's parts."""

    parameters: list[Parameter] = field(default_factory=list)
    description: str = ""
    version: str | None = None
    warnings: list[DiscoveryError] = field(default_factory=list)
    # A subcommand's own (its name and line); the program's: its subcommands that can be
    # served, whether it has any, and whether it also runs without one.
    name: str = ""
    line: int = 0
    commands: list[CliSpec] = field(default_factory=list)
    has_commands: bool = False
    runs_alone: bool = True
