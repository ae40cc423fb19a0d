"""A package's names loaded on first use (PEP 562), so importing the package stays cheap:
`toolkiln.serve` and `toolkiln.serve.tasks` are imported by commands (`toolkiln tasks`)
that must not load the mcp SDK their other modules need."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` that imports `package.<homes[name]>` when `name` is first read."""

    def load(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{homes[name]}"), name)

    return load
