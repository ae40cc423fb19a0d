"""What a name in a module refers to where it is used, read with `ast` (the module is
never imported): the values bound to it before that line, a helper's parameter followed
to what its callers pass, a call of a helper followed to what it returns.

The objects found are whatever the caller has recorded for the calls that make them
(`made`, by `id` of the call): `python_parsers` records argparse parsers, groups and
subparsers actions.
"""

from __future__ import annotations

import ast
from typing import Generic, TypeVar

T = TypeVar("T")


class NameTrace(Generic[T]):
    """The names of one module, the functions it defines, and what each name refers to."""

    def __init__(self, module: ast.Module, made: dict[int, T]) -> None:
        self.module, self.made = module, made
        self.functions = {
            node.name: node
            for node in ast.walk(module)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        self.enclosing: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        for function in self.functions.values():
            for inner in ast.walk(function):
                self.enclosing.setdefault(id(inner), function)
        self.bindings: dict[str, list[tuple[int, ast.expr | list[ast.expr]]]] = {}
        self._bind(module)

    def _bind(self, module: ast.Module) -> None:
        """Each name (or `a.b` attribute) and the values bound to it, by line: assignments,
        `:=`, a `for` over a literal list or tuple, `with ... as`."""
        for node in ast.walk(module):
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name | ast.Attribute):
                        self.bindings.setdefault(ast.unparse(target), []).append((node.lineno, node.value))
            elif isinstance(node, ast.NamedExpr):
                self.bindings.setdefault(node.target.id, []).append((node.lineno, node.value))
            elif isinstance(node, ast.For):
                if isinstance(node.target, ast.Name) and isinstance(node.iter, ast.List | ast.Tuple):
                    self.bindings.setdefault(node.target.id, []).append((node.lineno, list(node.iter.elts)))
            elif isinstance(node, ast.With):
                for item in node.items:
                    if isinstance(item.optional_vars, ast.Name):
                        self.bindings.setdefault(item.optional_vars.id, []).append(
                            (node.lineno, item.context_expr)
                        )
        for entries in self.bindings.values():
            entries.sort(key=lambda entry: entry[0])

    def resolve(self, node: ast.expr, line: int, depth: int = 0) -> list[T]:
        """What `node`, at `line`, refers to (several for a loop variable or a helper's parameter)."""
        if depth > 8:
            return []
        if isinstance(node, ast.Call):
            if id(node) in self.made:
                return [self.made[id(node)]]
            function = node.func
            if isinstance(function, ast.Name) and function.id in self.functions:
                return self._returned(self.functions[function.id], depth)
            return []
        if not isinstance(node, ast.Name | ast.Attribute):
            return []
        key = ast.unparse(node)
        earlier = [value for at, value in self.bindings.get(key, []) if at <= line]
        helper = self.enclosing.get(id(node))
        if isinstance(node, ast.Name) and helper is not None and _is_parameter(helper, node.id):
            inside = [value for at, value in self.bindings.get(key, []) if helper.lineno <= at <= line]
            if not inside:  # a helper's parameter, not rebound in it: what its callers pass
                return self._through_calls(helper, node.id, depth)
        if not earlier:
            return []
        value = earlier[-1]
        values = value if isinstance(value, list) else [value]
        return [
            found for item in values for found in self.resolve(item, getattr(item, "lineno", line), depth + 1)
        ]

    def _returned(self, function: ast.FunctionDef | ast.AsyncFunctionDef, depth: int) -> list[T]:
        found: list[T] = []
        for node in ast.walk(function):
            if isinstance(node, ast.Return) and node.value is not None:
                value = (
                    node.value.elts[0]
                    if isinstance(node.value, ast.Tuple) and node.value.elts
                    else node.value
                )
                found += self.resolve(value, node.lineno, depth + 1)
        return found

    def _through_calls(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str, depth: int
    ) -> list[T]:
        """A helper's parameter (`def add_common(p): p.add_argument(...)`): what each of its calls passes."""
        names = [arg.arg for arg in [*function.args.posonlyargs, *function.args.args]]
        position = names.index(name) if name in names else -1
        found: list[T] = []
        for node in ast.walk(self.module):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == function.name
            ):
                given = next((k.value for k in node.keywords if k.arg == name), None)
                if given is None and 0 <= position < len(node.args):
                    given = node.args[position]
                if given is not None:
                    found += self.resolve(given, node.lineno, depth + 1)
        return found


def _is_parameter(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    return name in [
        arg.arg for arg in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
    ]
