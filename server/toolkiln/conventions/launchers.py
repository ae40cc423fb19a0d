"""The runner's one question to the conventions: how does a tool of this convention start?

Keyed by `convention_of(tool)`: the `dialect` a compiled tool carries in tools.json, but
for a Python script run as a process, `python-<entry>` (`script`, `docopt`, `fire`,
`argv`); `python` alone runs in toolkiln's workers. Adding a convention: its package with
a `read.py` (a line in `order.py`) and an `argv.py` (a line here).
"""

from __future__ import annotations

from toolkiln.conventions.annotations.argv import annotations_argv
from toolkiln.conventions.argc.argv import argc_argv, argc_launch_env, argc_runtime_missing
from toolkiln.conventions.by_hand.python_argv_argv import argv_stdin, argv_words, reads_by_hand
from toolkiln.conventions.entry_points.argv import entry_point_argv, entry_point_stdin
from toolkiln.conventions.fallback.argv import fallback_argv
from toolkiln.conventions.javascript.argv import function_argv
from toolkiln.conventions.launch import Launch, closed_stdin, script_alone
from toolkiln.conventions.node_cli.argv import node_cli_argv
from toolkiln.conventions.python.fire_argv import fire_argv
from toolkiln.conventions.python_cli.argv import python_script_argv
from toolkiln.conventions.python_cli.docopt_argv import docopt_argv
from toolkiln.conventions.raycast.argv import raycast_argv
from toolkiln.conventions.scriptkit.argv import scriptkit_argv
from toolkiln.conventions.shell.argv import shell_argv, shell_stdin
from toolkiln.conventions.sidecar.argv import sidecar_argv, sidecar_env, sidecar_runtime_missing
from toolkiln.model import CompiledTool
from toolkiln.vocabulary import SCRIPT_ENTRIES

LAUNCHERS: dict[str, Launch] = {
    "annotations": Launch(annotations_argv),
    "argc": Launch(argc_argv, env=argc_launch_env, runtime_missing=argc_runtime_missing),
    "entry-point": Launch(entry_point_argv, stdin=entry_point_stdin, stdin_only=reads_by_hand),
    "fallback": Launch(fallback_argv, stdin=closed_stdin),
    "function": Launch(function_argv),
    "help-json": Launch(script_alone),
    "kit": Launch(script_alone),
    "node-cli": Launch(node_cli_argv),
    "python": Launch(python_script_argv, in_worker=True),
    "python-argv": Launch(argv_words, stdin=argv_stdin, stdin_only=reads_by_hand),
    "python-docopt": Launch(docopt_argv),
    "python-fire": Launch(fire_argv),
    "python-script": Launch(python_script_argv),
    "raycast": Launch(raycast_argv, stdin=closed_stdin),
    "scriptkit": Launch(scriptkit_argv),
    "shell": Launch(shell_argv, stdin=shell_stdin),
    "sidecar": Launch(sidecar_argv, env=sidecar_env, runtime_missing=sidecar_runtime_missing),
}


def convention_of(tool: CompiledTool) -> str:
    """The convention a compiled tool runs by (see the module's docstring)."""
    if tool.dialect == "python" and tool.python_entry in SCRIPT_ENTRIES:
        return f"python-{tool.python_entry}"
    return tool.dialect


def launch_of(tool: CompiledTool) -> Launch:
    """How `tool` starts. A dialect no convention runs (a tools.json from a newer toolkiln,
    or `command`, which the runner handles itself) is a `KeyError` naming it."""
    return LAUNCHERS[convention_of(tool)]
