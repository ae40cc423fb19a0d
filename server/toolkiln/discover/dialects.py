"""Every script dialect, in the order they are asked "is this file yours?".

Adding a dialect means one new module with `claims` and `declare`, and one line here.
"""

from __future__ import annotations

from toolkiln.conventions.entry_points import reader as entry_points
from toolkiln.discover import annotations as annotations_dialect
from toolkiln.discover import (
    argc,
    fallback,
    help_json,
    js_function,
    kit,
    node_cli,
    python_argv,
    python_function,
    python_module,
    python_script,
    raycast,
    scriptkit,
    shell_script,
    sidecar,
)
from toolkiln.discover.base import Dialect

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
# project's own declaration, as certain as a sidecar, and no other dialect's file.
ALL_DIALECTS: tuple[Dialect, ...] = (
    sidecar, entry_points, annotations_dialect, kit, scriptkit, raycast, python_module, python_function,
    python_script, python_argv, argc, js_function, node_cli, shell_script, help_json, fallback,
)  # fmt: skip
