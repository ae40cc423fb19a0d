"""The entry-point dialect: a project's `pyproject.toml` (`[project.scripts]`,
`[tool.poetry.scripts]`) or `package.json` (`bin`) that names commands; each command a
tool named after it (see the package's docstring)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from toolkiln.conventions.base import Candidate, Declaration, NotATool, Probe
from toolkiln.conventions.entry_points.imports import import_warning
from toolkiln.conventions.entry_points.interpreter import python_problem
from toolkiln.conventions.entry_points.node_reader import read_node_command
from toolkiln.conventions.entry_points.project import (
    PACKAGE_JSON,
    PYPROJECT,
    Command,
    declares_commands,
    read_capped,
    read_table,
)
from toolkiln.conventions.entry_points.python_reader import read_python_command
from toolkiln.conventions.subcommands import with_file_warnings
from toolkiln.errors import DiscoveryError

# Read, never run: a folder whose project file declares commands is that project's tools.
CLAIM_IS_CERTAIN = True
PROJECT_FILES = (PYPROJECT, PACKAGE_JSON)


def claims(candidate: Candidate) -> bool:
    if candidate.path.name not in PROJECT_FILES or not declares_commands(candidate.path, candidate.head):
        return False
    try:
        return bool(read_table(candidate.path).commands)
    except (OSError, ValueError):
        return False


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    path = candidate.relative_path
    try:
        table = read_table(candidate.path, read_capped(candidate.path))
    except (OSError, ValueError) as error:
        raise DiscoveryError(str(error), path=path) from None
    project = candidate.path.parent
    tools_dir = Path(str(candidate.path)[: -len(path) - 1])
    warnings = [DiscoveryError(f"{refused.reason}; not served", path=path) for refused in table.refused]
    if candidate.path.name == PYPROJECT and (problem := python_problem(project)):
        raise DiscoveryError(problem, path=path)
    declarations: list[Declaration] = []
    reasons: list[str] = []
    for command in table.commands:
        try:
            if candidate.path.name == PYPROJECT:
                found = read_python_command(command, project, tools_dir, table.description)
                warning = await import_warning(candidate, command, found, probe)
                warnings += [warning] if warning else []
            else:
                found = await read_node_command(command, project, tools_dir, table.description, probe)
        except NotATool as verdict:
            reasons.append(verdict.reason)
            continue
        except DiscoveryError as error:  # one broken command: the others are still served
            warnings.append(error)
            reasons.append(f"{command.name}: {error.reason}")
            continue
        declarations += [_named(command, declaration) for declaration in found]
    if not declarations:
        reasons = [refused.reason for refused in table.refused] + reasons
        raise NotATool(
            "a project whose commands toolkiln cannot read: " + "; ".join(reasons or ["none declared"]),
            kind="no-declaration",
        )
    return with_file_warnings(declarations, warnings)


def _named(command: Command, declaration: Declaration) -> Declaration:
    """The tool of a command: named after it (and its subcommand), run as its entry point."""
    base = command.name if declaration.command is None else f"{command.name}_{declaration.command}"
    return dataclasses.replace(
        declaration,
        dialect="entry-point",
        name=re.sub(r"[^A-Za-z0-9_-]+", "_", base).strip("_")[:64] or "command",
        entry_point=command.target,
    )
