"""A Node command a project declares (`"bin": {"greet": "bin/greet.js"}`), read by the
node readers (commander, yargs, `parseArgs`) like any script, as text; never run."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from toolkiln.containment import escape_reason
from toolkiln.conventions.base import Candidate, Declaration, NotATool, Probe
from toolkiln.conventions.entry_points.project import Command
from toolkiln.errors import DiscoveryError


async def read_node_command(
    command: Command, project: Path, tools_dir: Path, description: str, probe: Probe
) -> list[Declaration]:
    """The tools of one declared bin file (one per subcommand); `NotATool` when the node
    readers find no command line in it."""
    from toolkiln.conventions.node_cli import read as node_cli

    path = project / command.target
    relative = path.relative_to(tools_dir).as_posix()
    reason = escape_reason(tools_dir, relative)
    if reason is not None or not path.is_file():
        raise NotATool(
            f"bin {command.name}: {command.target} {reason or 'is not a file'}", kind="no-declaration"
        )
    try:
        stat = os.stat(path)
    except OSError as error:
        raise DiscoveryError(f"cannot be read ({error.strerror})", path=relative) from None
    candidate = Candidate(path=path, relative_path=relative, stat=stat)
    if not node_cli.claims(candidate):
        raise NotATool(
            f"bin {command.name}: {command.target} parses no command line that toolkiln reads "
            "(commander, yargs, node:util parseArgs)",
            kind="no-declaration",
        )
    from toolkiln.conventions.raycast.read import runtime_problem  # `#!/usr/bin/env node` and no node

    if problem := runtime_problem(candidate):
        raise NotATool(f"bin {command.name}: {command.target} {problem}", kind="runtime-missing")
    return [
        dataclasses.replace(
            declaration, description=declaration.description or description, companions=(relative,)
        )
        for declaration in await node_cli.declare(candidate, probe)
    ]
