"""Small readings of Python syntax the `sys.argv` reader (python_argv_read.py) is made of:
each looks at one node and a bounded chain under it, so the reader stays one pass."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TypeGuard

from toolkiln.vocabulary import ParamType

CONVERTERS: dict[str, ParamType] = {"int": "integer", "float": "number"}
_EXITS = {"sys.exit", "exit", "quit", "os._exit"}


def exits(body: ast.ExceptHandler | list[ast.stmt]) -> bool:
    """Whether a block's own statements end the script (`sys.exit(USAGE)`, `raise`, `return`)."""
    for statement in body.body if isinstance(body, ast.ExceptHandler) else body:
        if isinstance(statement, ast.Raise | ast.Return):
            return True
        call = statement.value if isinstance(statement, ast.Expr) else None
        if isinstance(call, ast.Call) and dotted(call.func) in _EXITS:
            return True
    return False


def joins(node: ast.expr) -> TypeGuard[ast.Call]:
    """`" ".join(x)` with one argument."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "join"
        and isinstance(node.func.value, ast.Constant)
        and len(node.args) == 1
    )


def converted(node: ast.AST) -> tuple[ast.AST, ParamType]:
    """`int(x)` is x, an integer; `float(x)` x, a number; anything else itself, a string."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1:
        type_ = CONVERTERS.get(node.func.id)
        if type_ is not None:
            return node.args[0], type_
    return node, "string"


def whole(node: ast.expr | None) -> int | None:
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def is_stdin(node: ast.expr) -> bool:
    """`sys.stdin` (`sys.stdin.read()`, `for line in sys.stdin`, `json.load(sys.stdin)`)."""
    return dotted(node) == "sys.stdin"


def dotted(node: ast.expr | None) -> str:
    """`a.b.c` for a chain of names (bounded: no `unparse` of arbitrary subtrees), else ""."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute) and len(parts) < 8:
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    return ".".join([node.id, *reversed(parts)])


def imports_argv(module: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom)
        and node.module == "sys"
        and any(a.name == "argv" for a in node.names)
        for node in module.body
    )


def plural(name: str) -> str:
    return name if name.endswith("s") else name + "s"


def len_bound(test: ast.expr, is_argv: Callable[[ast.AST], bool]) -> tuple[str, int, ast.expr] | None:
    """What an `if` on `len(sys.argv)` says, and the `sys.argv` it reads: ("at-least", words)
    when the body runs on too few words (`< 3`: 2 words needed), ("exactly", words) for
    `!= 3`, ("at-least-if-true", words) for `> 2` (the body runs only when there are that many)."""
    if isinstance(test, ast.BoolOp):
        return next((bound for value in test.values if (bound := len_bound(value, is_argv))), None)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, right, op = test.left, test.comparators[0], test.ops[0]
    if not (isinstance(left, ast.Call) and dotted(left.func) == "len" and len(left.args) == 1):
        return None
    argv = left.args[0]
    if not is_argv(argv) or (count := whole(right)) is None:
        return None
    kinds: list[tuple[type[ast.cmpop], str, int]] = [
        (ast.NotEq, "exactly", count - 1),
        (ast.Lt, "at-least", count - 1),
        (ast.LtE, "at-least", count),
        # `== 1`: no word, the usage; `== 3`: the body runs on exactly 2
        (ast.Eq, "at-least" if count == 1 else "exactly", 1 if count == 1 else count - 1),
        (ast.Gt, "at-least-if-true", count),
        (ast.GtE, "at-least-if-true", count - 1),
    ]
    return next(((kind, words, argv) for op_type, kind, words in kinds if isinstance(op, op_type)), None)
