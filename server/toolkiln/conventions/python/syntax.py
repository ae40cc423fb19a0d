"""A Python file as a syntax tree (read with `ast`, never imported): what every Python
reader starts from."""

from __future__ import annotations

import ast

from toolkiln.conventions.base import Candidate
from toolkiln.errors import DiscoveryError

# The command-line libraries toolkiln reads, typer and click before argparse (a typer or
# click script may also import argparse for a helper).
FRAMEWORKS = ("typer", "click", "argparse", "docopt", "fire")


def parse_module(candidate: Candidate) -> ast.Module:
    """The file's syntax tree; a `DiscoveryError` at the line when it is not valid Python."""
    path = candidate.relative_path
    try:
        return ast.parse(candidate.text(), filename=path)
    except SyntaxError as error:
        raise DiscoveryError(f"is not valid Python: {error.msg}", path=path, line=error.lineno) from None


def cli_frameworks(module: ast.Module) -> list[str]:
    """The command-line libraries the module imports, in the order of `FRAMEWORKS`."""
    found: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return [name for name in FRAMEWORKS if name in found]
