"""Every convention's reader, in the order they are asked "is this file yours?".

Adding a convention means its package under `conventions/` with a `read.py` (`claims`,
`declare`) and an `argv.py`, one line here and one in `launchers.py` (docs/architecture.md).

The readers are named, not imported: a discovery that finds nothing changed imports only
the readers of the files it knows (`reader_named`), not all of them with their ~200
regular expressions (measured: 0.2 s of a 0.45 s unchanged discovery of 1,000 tools).
"""

from __future__ import annotations

import functools
from importlib import import_module
from typing import cast

from toolkiln.conventions.base import Reader

# A sidecar is the most explicit declaration there is, and reading it is free and certain,
# so it goes first. Reading a header, a module or a script's parser declarations is free
# and certain too; probing `--help` runs the file, so it goes late. The fallback is last:
# it takes only files the user opted in and no other reader declares (help-json hands it the
# executables whose `--help` is plain text). argc comes after the Python readers: a `.py`
# file cannot call argc, so argc tags in its comments document a `def run` (or a CLI) that
# those readers serve; argc still says why a tagged file nobody takes is not a tool.
# shell.read reads a plain shell script's own argument handling before help-json would
# run it: it leaves alone scripts that answer `--help` with JSON, and opted-in files.
# entry_points reads only a pyproject.toml or package.json that names commands: the
# project's own declaration, as certain as a sidecar, and no other reader's file.
# by_hand.python_argv reads the Python scripts that take `sys.argv` by hand, after the
# Python readers; by_hand.node_argv (Node by hand) comes after node_cli and js_function,
# which take the scripts that parse with a library or export a function. usage_probed probes the scripts of
# languages with no reader (Ruby, Perl, ...) whose text says `usage`, and serves their
# help's usage when it is their own help and names every argument (else as help-json).
READER_MODULES: tuple[str, ...] = (
    "toolkiln.conventions.sidecar.read",
    "toolkiln.conventions.entry_points.reader",
    "toolkiln.conventions.annotations.read",
    "toolkiln.conventions.kit.read",
    "toolkiln.conventions.scriptkit.read",
    "toolkiln.conventions.raycast.read",
    "toolkiln.conventions.python.execute",
    "toolkiln.conventions.python.run_function",
    "toolkiln.conventions.python.script",
    "toolkiln.conventions.by_hand.python_argv",
    "toolkiln.conventions.argc.read",
    "toolkiln.conventions.javascript.function",
    "toolkiln.conventions.node_cli.read",
    "toolkiln.conventions.by_hand.node_argv",
    "toolkiln.conventions.shell.read",
    "toolkiln.conventions.usage.probed",
    "toolkiln.conventions.help_json.read",
    "toolkiln.conventions.fallback.read",
)


@functools.cache
def readers() -> tuple[Reader, ...]:
    """Every reader, in order (each imported on first use)."""
    return tuple(cast(Reader, import_module(name)) for name in READER_MODULES)


def reader_named(module_name: str) -> Reader | None:
    """The reader whose module is `module_name` (as discovery's index remembers a file's
    claimant), or None: a name from an older layout is claimed afresh. Only a name of the
    list above is imported."""
    return cast(Reader, import_module(module_name)) if module_name in READER_MODULES else None
