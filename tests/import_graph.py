"""The package's import graph, read from its source (top-level and function-level imports
alike), for the tests that keep the house rules."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "toolkiln"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, *, typing_too: bool = True) -> set[str]:
    """Every module `path` imports, at its top or inside a function, resolved to a module;
    without `typing_too`, not those under `if TYPE_CHECKING:` (never run)."""
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) and not typing_too:
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                joined = f"{node.module}.{alias.name}"
                names.add(
                    joined
                    if (PACKAGE.parent / joined.replace(".", "/")).with_suffix(".py").exists()
                    else node.module
                )
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    return names


def modules(*folders: str) -> Iterator[Path]:
    """The package's modules (under `folders` when given), the templates `toolkiln new`
    renders for users left out."""
    roots = [PACKAGE / folder for folder in folders] or [PACKAGE]
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            if "templates" not in path.relative_to(PACKAGE).parts:
                yield path


def graph(*, typing_too: bool = True) -> dict[str, set[str]]:
    """Each module of the package -> the other modules of the package it imports."""
    paths = {module_name(path): path for path in modules()}
    return {
        name: (imports_of(path, typing_too=typing_too) & paths.keys()) - {name}
        for name, path in paths.items()
    }


def inside(name: str, *roots: str) -> bool:
    """Whether module `name` is one of `roots` or inside one of them."""
    return any(name == root or name.startswith(root + ".") for root in roots)
