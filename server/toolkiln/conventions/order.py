"""Every convention's reader, in the order they are asked "is this file yours?".

Adding a convention means its package under `conventions/` with a `read.py` (`claims`,
`declare`) and an `argv.py`, one line here and one in `launchers.py` (docs/architecture.md).
"""

from __future__ import annotations

from toolkiln.conventions.annotations import read as annotations_reader
from toolkiln.conventions.argc import read as argc
from toolkiln.conventions.base import Reader
from toolkiln.conventions.by_hand import node_argv
from toolkiln.conventions.entry_points import reader as entry_points
from toolkiln.conventions.fallback import read as fallback
from toolkiln.conventions.help_json import read as help_json
from toolkiln.conventions.javascript import function as js_function
from toolkiln.conventions.kit import read as kit
from toolkiln.conventions.node_cli import read as node_cli
from toolkiln.conventions.python import execute as python_module
from toolkiln.conventions.python import run_function as python_function
from toolkiln.conventions.python import script as python_script
from toolkiln.conventions.raycast import read as raycast
from toolkiln.conventions.scriptkit import read as scriptkit
from toolkiln.conventions.sidecar import read as sidecar
from toolkiln.conventions.usage import probed as usage_probed
from toolkiln.discover import (  # being rewritten in place; move to conventions/ after
    python_argv,
    shell_script,
)

# A sidecar is the most explicit declaration there is, and reading it is free and certain,
# so it goes first. Reading a header, a module or a script's parser declarations is free
# and certain too; probing `--help` runs the file, so it goes late. The fallback is last:
# it takes only files the user opted in and no dialect declares (help-json hands it the
# executables whose `--help` is plain text). argc comes after the Python dialects: a `.py`
# file cannot call argc, so argc tags in its comments document a `def run` (or a CLI) that
# those dialects serve; argc still says why a tagged file nobody takes is not a tool.
# shell_script reads a plain shell script's own argument handling before help-json would
# run it: it leaves alone scripts that answer `--help` with JSON, and opted-in files.
# entry_points reads only a pyproject.toml or package.json that names commands: the
# project's own declaration, as certain as a sidecar, and no other reader's file.
# node_argv (Node by hand) comes after node_cli and js_function, which take the scripts
# that parse with a library or export a function. usage_probed probes the scripts of
# languages with no reader (Ruby, Perl, ...) whose text says `usage`, and serves their
# help's usage when it is their own help and names every argument (else as help-json).
READERS: tuple[Reader, ...] = (
    sidecar, entry_points, annotations_reader, kit, scriptkit, raycast, python_module, python_function,
    python_script, python_argv, argc, js_function, node_cli, node_argv, shell_script, usage_probed,
    help_json, fallback,
)  # fmt: skip


def reader_named(module_name: str) -> Reader | None:
    """The reader whose module is `module_name` (as discovery's index remembers a file's
    claimant), or None: a name from an older layout is claimed afresh."""
    return _BY_MODULE.get(module_name)


_BY_MODULE = {getattr(reader, "__name__", ""): reader for reader in READERS}
