"""The runner's one question to the conventions: how does a tool of this convention start?

Keyed by `convention_of(tool)`: the `dialect` a compiled tool carries in tools.json, but
for a Python script run as a process, `python-<entry>` (`script`, `docopt`, `fire`,
`argv`); `python` alone runs in toolkiln's workers. Adding a convention: its package with
a `read.py` (a line in `order.py`) and an `argv.py` (a function and a line here).

A convention's argv module is imported when a tool of it first starts: a server whose
tools are all shell scripts never loads the others (~7 ms of every start when it did).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping

from toolkiln.conventions.launch import Launch, closed_stdin, script_alone
from toolkiln.model import CompiledTool
from toolkiln.vocabulary import SCRIPT_ENTRIES


def _annotations() -> Launch:
    from toolkiln.conventions.annotations.argv import annotations_argv

    return Launch(annotations_argv)


def _argc() -> Launch:
    from toolkiln.conventions.argc.argv import argc_argv, argc_launch_env, argc_runtime_missing

    return Launch(argc_argv, env=argc_launch_env, runtime_missing=argc_runtime_missing)


def _entry_point() -> Launch:
    from toolkiln.conventions.by_hand.python_argv_argv import reads_by_hand
    from toolkiln.conventions.entry_points.argv import entry_point_argv, entry_point_stdin

    return Launch(entry_point_argv, stdin=entry_point_stdin, stdin_only=reads_by_hand)


def _fallback() -> Launch:
    from toolkiln.conventions.fallback.argv import fallback_argv

    return Launch(fallback_argv, stdin=closed_stdin)


def _function() -> Launch:
    from toolkiln.conventions.javascript.argv import function_argv

    return Launch(function_argv)


def _node_cli() -> Launch:
    from toolkiln.conventions.node_cli.argv import node_cli_argv

    return Launch(node_cli_argv)


def _python(in_worker: bool) -> Callable[[], Launch]:
    def made() -> Launch:
        from toolkiln.conventions.python_cli.argv import python_script_argv

        return Launch(python_script_argv, in_worker=in_worker)

    return made


def _python_argv() -> Launch:
    from toolkiln.conventions.by_hand.python_argv_argv import argv_stdin, argv_words, reads_by_hand

    return Launch(argv_words, stdin=argv_stdin, stdin_only=reads_by_hand)


def _python_docopt() -> Launch:
    from toolkiln.conventions.python_cli.docopt_argv import docopt_argv

    return Launch(docopt_argv)


def _python_fire() -> Launch:
    from toolkiln.conventions.python.fire_argv import fire_argv

    return Launch(fire_argv)


def _raycast() -> Launch:
    from toolkiln.conventions.raycast.argv import raycast_argv

    return Launch(raycast_argv, stdin=closed_stdin)


def _scriptkit() -> Launch:
    from toolkiln.conventions.scriptkit.argv import scriptkit_argv

    return Launch(scriptkit_argv)


def _shell() -> Launch:
    from toolkiln.conventions.shell.argv import shell_argv, shell_stdin

    return Launch(shell_argv, stdin=shell_stdin)


def _sidecar() -> Launch:
    from toolkiln.conventions.sidecar.argv import sidecar_argv, sidecar_env, sidecar_runtime_missing

    return Launch(sidecar_argv, env=sidecar_env, runtime_missing=sidecar_runtime_missing)


_MADE_BY: dict[str, Callable[[], Launch]] = {
    "annotations": _annotations,
    "argc": _argc,
    "entry-point": _entry_point,
    "fallback": _fallback,
    "function": _function,
    "help-json": lambda: Launch(script_alone),
    "kit": lambda: Launch(script_alone),
    "node-cli": _node_cli,
    "python": _python(in_worker=True),
    "python-argv": _python_argv,
    "python-docopt": _python_docopt,
    "python-fire": _python_fire,
    "python-script": _python(in_worker=False),
    "raycast": _raycast,
    "scriptkit": _scriptkit,
    "shell": _shell,
    "sidecar": _sidecar,
}


class _Launchers(Mapping[str, Launch]):
    """Every convention's `Launch`, each made (its module imported) on first use."""

    def __getitem__(self, convention: str) -> Launch:
        return _made(convention)

    def __iter__(self) -> Iterator[str]:
        return iter(_MADE_BY)

    def __len__(self) -> int:
        return len(_MADE_BY)

    def __contains__(self, convention: object) -> bool:
        return convention in _MADE_BY


@functools.cache
def _made(convention: str) -> Launch:
    return _MADE_BY[convention]()


LAUNCHERS: Mapping[str, Launch] = _Launchers()


def convention_of(tool: CompiledTool) -> str:
    """The convention a compiled tool runs by (see the module's docstring)."""
    if tool.dialect == "python" and tool.python_entry in SCRIPT_ENTRIES:
        return f"python-{tool.python_entry}"
    return tool.dialect


def launch_of(tool: CompiledTool) -> Launch:
    """How `tool` starts. A dialect no convention runs (a tools.json from a newer toolkiln,
    or `command`, which the runner handles itself) is a `KeyError` naming it."""
    return LAUNCHERS[convention_of(tool)]
