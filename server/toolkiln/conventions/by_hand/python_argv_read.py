"""What a Python script that reads `sys.argv` by hand takes, read from its syntax tree
in one pass (never imported):

    pdf_path = sys.argv[1]                               # slot 1, named pdf_path
    a, b = sys.argv[1], sys.argv[2]  /  a, b = sys.argv[1:3]  /  _, a, b = sys.argv
    n = int(sys.argv[3])                                 # an integer (float: a number)
    out = sys.argv[4] if len(sys.argv) > 4 else "x"      # optional, default "x"
    for path in sys.argv[1:]: ...                        # the rest, an array
    main(*sys.argv[1:])                                  # def main(src, dst="."): named there
    sys.stdin.read(), for line in sys.stdin, json.load(sys.stdin), fileinput.input()

Every other use of the command line (`"-v" in sys.argv`, `sys.argv[i]`, `main(sys.argv)`)
is a `problem`: the script reads something toolkiln cannot name, so it is not served.
"""

from __future__ import annotations

import ast
from typing import Any

from toolkiln.conventions.by_hand.python_argv_reading import ArgvReading
from toolkiln.conventions.by_hand.python_argv_syntax import (
    CONVERTERS,
    converted,
    dotted,
    exits,
    imports_argv,
    is_stdin,
    joins,
    len_bound,
    plural,
    whole,
)

_CATCH_INDEX = {"IndexError", "LookupError", "Exception", "BaseException", "ValueError"}
_ASKERS = ("input", "getpass", "getpass.getpass")


def read_argv(module: ast.Module) -> ArgvReading:
    reader = _Reader(module)
    try:
        reader.visit(module)
    except RecursionError:  # an expression nested hundreds deep: written to break a reader
        return ArgvReading(problems=[(0, "is nested too deep for toolkiln to read")])
    reader.check_unread(module)
    return reader.reading


class _Reader(ast.NodeVisitor):
    def __init__(self, module: ast.Module) -> None:
        self.reading = ArgvReading()
        self.known: set[int] = set()  # ids of the `sys.argv` nodes read by a known pattern
        self.guards = 0  # inside an `if len(sys.argv) > N:` body, or a `try` catching IndexError
        self.argv_names = {"argv"} if imports_argv(module) else set()
        self.functions = {
            node.name: node
            for node in module.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }

    # -- what is `sys.argv`
    def is_argv(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Attribute) and node.attr == "argv":
            return isinstance(node.value, ast.Name) and node.value.id == "sys"
        return isinstance(node, ast.Name) and node.id in self.argv_names

    def index_of(self, node: ast.AST) -> int | None:
        """N for `sys.argv[N]` (N a whole number), marking it read."""
        if not (isinstance(node, ast.Subscript) and self.is_argv(node.value)):
            return None
        index = node.slice.value if isinstance(node.slice, ast.Constant) else None
        if type(index) is not int or index < 0:
            return None
        self.known.add(id(node.value))
        return index

    def rest_of(self, node: ast.AST) -> tuple[int, int | None] | None:
        """(start, stop) for `sys.argv[start:stop]`, marking it read."""
        if not (
            isinstance(node, ast.Subscript) and self.is_argv(node.value) and isinstance(node.slice, ast.Slice)
        ):
            return None
        part = node.slice
        start, stop = (whole(part.lower) if part.lower else 0), (whole(part.upper) if part.upper else None)
        if start is None or part.step is not None or (part.upper is not None and stop is None):
            return None
        self.known.add(id(node.value))
        return start, stop

    def len_bound(self, test: ast.expr) -> tuple[str, int] | tuple[None, None]:
        """What a test on `len(sys.argv)` says (syntax.len_bound), marking its read."""
        found = len_bound(test, self.is_argv)
        if found is None:
            return None, None
        kind, count, node = found
        self.known.add(id(node))
        return kind, count

    # -- slots
    def add_slot(self, index: int, node: ast.AST, name: str | None = None, **fields: Any) -> None:
        self.reading.add_slot(index, getattr(node, "lineno", 0), name, guarded=self.guards > 0, **fields)

    def read_value(self, value: ast.AST, name: str | None) -> bool:
        """`sys.argv[N]`, `int(sys.argv[N])` or `sys.argv[N] if len(sys.argv) > N else D` bound to `name`."""
        if isinstance(value, ast.IfExp):
            body, type_ = converted(value.body)
            index = self.index_of(body)
            if index is not None and self.len_bound(value.test)[0] == "at-least-if-true":
                default = value.orelse.value if isinstance(value.orelse, ast.Constant) else None
                self.add_slot(index, value, name, type=type_, optional=True, default=default)
                return True
            return False
        value, type_ = converted(value)
        index = self.index_of(value)
        if index is None:
            return False
        self.add_slot(index, value, name, type=type_)
        return True

    # -- visits
    def visit_Assign(self, node: ast.Assign) -> None:
        if len(node.targets) == 1:
            self.read_assignment(node.targets[0], node.value)
        self.generic_visit(node)

    def read_assignment(self, target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            if joins(value):  # `query = " ".join(sys.argv[1:])`: the words, given as a list
                value = value.args[0]
            if not self.read_value(value, target.id) and (rest := self.rest_of(value)) and rest[1] is None:
                self.reading.add_rest(rest[0], value.lineno, target.id)
            return
        if not isinstance(target, ast.Tuple | ast.List) or not all(
            isinstance(t, ast.Name) for t in target.elts
        ):
            return
        names = [t.id for t in target.elts if isinstance(t, ast.Name)]
        if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(names):
            for name, item in zip(names, value.elts, strict=True):
                self.read_value(item, name)
            return
        start = 0 if self.is_argv(value) else None
        if start == 0:
            self.known.add(id(value))
            self.reading.set_exact(len(names) - 1)
        elif (rest := self.rest_of(value)) is not None:
            start, stop = rest
            if stop is None and not self.guards:
                self.reading.set_exact(start + len(names) - 1)
        for offset, name in enumerate(names):
            if start is not None and name != "_":
                self.add_slot(start + offset, target, name)

    def visit_For(self, node: ast.For) -> None:
        rest = self.rest_of(node.iter)
        if rest is not None and rest[1] is None and isinstance(node.target, ast.Name):
            self.reading.add_rest(rest[0], node.lineno, plural(node.target.id))
        elif is_stdin(node.iter):
            self.reading.reads_stdin = True
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = dotted(node.func)
        if name in _ASKERS:
            self.reading.asks = self.reading.asks or f"`{name}()` on line {node.lineno}"
        elif name == "fileinput.input":
            self.read_fileinput(node)
        elif name == "len" and len(node.args) == 1 and self.is_argv(node.args[0]):
            self.known.add(id(node.args[0]))  # how many words: reads none of them
        elif name == "sys.stdin.isatty":
            self.reading.checks_tty = True
        elif (
            name == "open"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == 0
        ):
            self.reading.reads_stdin = True
        elif (
            len(node.args) == 1 and isinstance(node.args[0], ast.Starred) and isinstance(node.func, ast.Name)
        ):
            rest = self.rest_of(node.args[0].value)
            if rest is not None and rest[1] is None and node.func.id in self.functions:
                self.read_function(self.functions[node.func.id], rest[0], node)
        elif isinstance(node.func, ast.Name) and node.func.id in CONVERTERS and len(node.args) == 1:
            index = self.index_of(node.args[0])
            if index is not None:
                self.add_slot(index, node, type=CONVERTERS[node.func.id])
        elif isinstance(node.func, ast.Name) and node.func.id in self.functions:
            self.read_call(self.functions[node.func.id], node)
        self.generic_visit(node)

    def read_call(self, function: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call) -> None:
        """`convert(sys.argv[1], int(sys.argv[2]))` with `def convert(pdf_path, max_dim)`: the
        words are named by the parameters they are handed to."""
        parameters = [*function.args.posonlyargs, *function.args.args]
        for argument, parameter in zip(call.args, parameters, strict=False):
            if isinstance(argument, ast.Starred):
                return
            value, type_ = converted(argument)
            index = self.index_of(value)
            if index is not None:
                self.add_slot(index, call, parameter.arg, type=type_)

    def read_fileinput(self, node: ast.Call) -> None:
        files = (
            node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "files"), None)
        )
        rest = self.rest_of(files) if files is not None else (1, None)
        if rest is not None and rest[1] is None:  # the files named, or stdin when none is
            self.reading.add_rest(rest[0], node.lineno, "files", optional=True)
            self.reading.reads_stdin = True

    def read_function(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, start: int, call: ast.Call
    ) -> None:
        """`main(*sys.argv[1:])`: `def main(src, dst=".")` names the words from `start` on."""
        arguments = [*function.args.posonlyargs, *function.args.args]
        defaults = [None] * (len(arguments) - len(function.args.defaults)) + list(function.args.defaults)
        for offset, (argument, default) in enumerate(zip(arguments, defaults, strict=True)):
            annotation = dotted(argument.annotation)
            fields: dict[str, Any] = {"type": CONVERTERS.get(annotation, "string")}
            if default is not None:
                fields |= {
                    "optional": True,
                    "default": default.value if isinstance(default, ast.Constant) else None,
                }
            self.add_slot(start + offset, call, argument.arg, **fields)
        if function.args.vararg is not None:
            self.reading.add_rest(start + len(arguments), call.lineno, function.args.vararg.arg)
        elif not self.guards:
            self.reading.exact_words = self.reading.exact_words or start - 1 + len(arguments)

    def visit_If(self, node: ast.If) -> None:
        """`if len(sys.argv) < 3: usage; exit` says how many words are needed; `if
        len(sys.argv) > 2:` guards what its body reads; `if len(sys.argv) == 1: read stdin`
        (a body that goes on) guards what its `else` reads."""
        kind, count = self.len_bound(node.test)
        if kind is None or count is None:
            self.generic_visit(node)
            return
        needs = kind != "at-least-if-true"
        if needs and exits(node.body):
            self.reading.required_words = max(self.reading.required_words, count)
            if kind == "exactly":
                self.reading.exact_words = count
            self.generic_visit(node)
            return
        self.visit(node.test)
        for branch, guarded in ((node.body, not needs), (node.orelse, needs)):
            self.guards += guarded
            for child in branch:
                self.visit(child)
            self.guards -= guarded

    def visit_Try(self, node: ast.Try) -> None:
        """A word read in a `try` whose handler goes on without it (`except IndexError:
        name = "world"`) is optional; one whose handler exits (the usage) is not."""
        caught = [handler.type for handler in node.handlers]
        names = [dotted(t) for c in caught for t in (c.elts if isinstance(c, ast.Tuple) else [c]) if t]
        catches = (None in caught or bool(set(names) & _CATCH_INDEX)) and not any(
            exits(handler) for handler in node.handlers
        )
        self.guards += catches
        for child in node.body:
            self.visit(child)
        self.guards -= catches
        after: list[ast.AST] = [*node.handlers, *node.orelse, *node.finalbody]
        for later in after:
            self.visit(later)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if is_stdin(node):
            self.reading.reads_stdin = True
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        index = self.index_of(node)  # `open(sys.argv[1])`: a word read without a name
        if index is not None:
            self.add_slot(index, node)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and "usage" in node.value[:200].lower():
            self.reading.strings.append(node.value)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        text = "".join(str(part.value) if isinstance(part, ast.Constant) else "PROG" for part in node.values)
        if "usage" in text[:200].lower():
            self.reading.strings.append(text)
        self.generic_visit(node)

    def check_unread(self, module: ast.Module) -> None:
        for node in ast.walk(module):
            if self.is_argv(node) and not isinstance(getattr(node, "ctx", ast.Load()), ast.Store):
                self.reading.reads_argv = True
                if id(node) not in self.known:
                    self.reading.problems.append(
                        (getattr(node, "lineno", 0), "reads its command line in a way toolkiln cannot name")
                    )
