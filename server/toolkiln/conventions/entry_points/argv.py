"""How a declared command runs: as its entry point, the way the installed command would.

A Python command (`greet = "greet:cli"`) runs with the project's Python
(`interpreter.project_python`: its `.venv`, else toolkiln's) as

    python -c <BOOT> '["<project>", "<project>/src"]' greet:cli greet [its words...]

which puts the project's folders first on `sys.path`, makes `sys.argv` what the installed
command would see (`["greet", ...]`), imports the module and calls the function, exiting
with what it returns (as pip's console-script wrapper does). Its words are those the
module's framework reads (conventions/python_cli/argv.py for click, typer and argparse;
docopt's, fire's, by hand). A Node command (`bin`) runs its file as the node-cli dialect
runs any script.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkiln.containment import escape_reason
from toolkiln.conventions.entry_points.interpreter import project_python
from toolkiln.conventions.entry_points.project import PACKAGE_JSON, module_file
from toolkiln.conventions.launch import stdin_json
from toolkiln.errors import ProcessStartError
from toolkiln.interpreters import python_command
from toolkiln.model import CompiledTool

BOOT = (
    "import importlib, json, sys\n"
    "roots, target, name = sys.argv[1:4]\n"
    "sys.argv = [name, *sys.argv[4:]]\n"
    "sys.path[:0] = json.loads(roots)\n"
    "module, _, attributes = target.partition(':')\n"
    "entry = importlib.import_module(module)\n"
    "for attribute in attributes.split('.'):\n"
    "    entry = getattr(entry, attribute)\n"
    "sys.exit(entry())\n"
)


def entry_point_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    """The command line of a declared command; `script` is its project file."""
    project = script.parent
    if not tool.entry_point:
        raise ProcessStartError(
            f"{tool.config_file}: an entry-point tool without `entry_point`; discover again"
        )
    if script.name == PACKAGE_JSON:
        from toolkiln.conventions.node_cli.argv import node_cli_argv

        if reason := escape_reason(project, tool.entry_point):  # made a link out since discovery
            raise ProcessStartError(f"{tool.name}: its bin file {tool.entry_point}: {reason}")
        return node_cli_argv(project / tool.entry_point, tool, arguments)
    module = tool.entry_point.split(":")[0]
    if module_file(project, module) is None:  # gone, or made a link out since discovery
        raise ProcessStartError(
            f"{tool.name}: the module {module} of {tool.entry_point} is not a file inside {project}: "
            "run `toolkiln discover`"
        )
    roots = [str(project)] + ([str(project / "src")] if (project / "src").is_dir() else [])
    python = project_python(project)
    if not os.access(python, os.X_OK):
        raise ProcessStartError(
            f"{python} cannot run: make the project's environment again (`python3 -m venv --clear "
            f"{Path(python).parents[1]}`), or delete it to run the command with toolkiln's Python"
        )
    name = tool.name if tool.command is None else tool.name.removesuffix(f"_{tool.command}")
    return [python, "-c", BOOT, json.dumps(roots), tool.entry_point, name, *_words(script, tool, arguments)]


def _words(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    """The words after the program, as the module's framework reads them: each builder
    starts its command line with `python script.py`, which is taken away here."""
    if tool.python_entry == "docopt":
        from toolkiln.conventions.python_cli.docopt_argv import docopt_argv as builder
    elif tool.python_entry == "fire":
        from toolkiln.conventions.python.fire_argv import fire_argv as builder
    elif tool.python_entry == "argv":
        from toolkiln.conventions.by_hand.python_argv_argv import argv_words as builder
    else:
        from toolkiln.conventions.python_cli.argv import python_script_argv as builder
    prefix = [*python_command(script), str(script)]
    argv = builder(script, tool, arguments)
    if argv[: len(prefix)] != prefix:  # never: every builder starts so (tests/conventions check it)
        raise ProcessStartError(f"{tool.name}: cannot tell the command's words from its program")
    return argv[len(prefix) :]


def entry_point_stdin(tool: CompiledTool, arguments: Mapping[str, Any]) -> bytes | None:
    """A command reading `sys.argv` by hand gets its `stdin` parameter's text, or nothing;
    every other command the arguments as JSON, as its convention's scripts do."""
    from toolkiln.conventions.by_hand.python_argv_argv import argv_stdin, reads_by_hand

    if reads_by_hand(tool):
        return argv_stdin(tool, arguments)
    return stdin_json(arguments)
