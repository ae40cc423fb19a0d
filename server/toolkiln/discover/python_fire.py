"""Python Fire scripts (placeholder until the Fire reader lands)."""

from __future__ import annotations

import ast

from toolkiln.discover.base import Declaration, NotATool


def fire_call(module: ast.Module) -> ast.Call | None:
    return None


def read_fire(module: ast.Module, path: str) -> Declaration | list[Declaration]:
    raise NotATool("a Python Fire script", kind="argv-by-hand")
