"""Where a docopt script's usage text is: the text handed to its one `docopt(...)` call
(`__doc__`, or a module-level constant), read with `ast`, never run."""

from __future__ import annotations

import ast


def usage_text(module: ast.Module) -> tuple[str, int] | None:
    """The text the module hands to its one `docopt(...)` call, and the line where the
    text starts; None when there is no such call, several, or its text is made at run time."""
    calls = [
        node
        for node in ast.walk(module)
        if isinstance(node, ast.Call)
        and node.args
        and (
            (isinstance(node.func, ast.Name) and node.func.id == "docopt")
            or (isinstance(node.func, ast.Attribute) and node.func.attr == "docopt")
        )
    ]
    if len(calls) != 1:
        return None
    argument = calls[0].args[0]
    node: ast.expr | None = argument
    if isinstance(argument, ast.Name) and argument.id == "__doc__":
        first = module.body[0] if module.body else None
        node = first.value if isinstance(first, ast.Expr) else None
    elif isinstance(argument, ast.Name):
        node = _constant(module, argument.id)
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return None
    return (node.value, node.lineno) if "usage:" in node.value.lower() else None


def _constant(module: ast.Module, name: str) -> ast.expr | None:
    """The literal a module-level `NAME = "..."` assigns (the last one)."""
    found = None
    for node in module.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(target, ast.Name) and target.id == name for target in targets):
                found = node.value
    return found
