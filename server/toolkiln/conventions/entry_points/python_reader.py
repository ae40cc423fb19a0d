"""A Python command a project declares (`greet = "greet:cli"`), read with `ast` like any
script: the module the entry point names, found in the project folder or its `src/`,
is read by the click, typer, argparse, docopt and fire readers as if it ended with

    if __name__ == "__main__":
        cli()

(its own `__main__` block and top-level calls set aside: the entry point is what runs,
and `from . import x` is what a package module does). Never imported here.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

from toolkiln.conventions.base import Declaration, NotATool
from toolkiln.conventions.entry_points.project import Command, module_file
from toolkiln.conventions.python.syntax import cli_frameworks
from toolkiln.errors import DiscoveryError

MAX_MODULE_BYTES = 1024 * 1024
_READS_INPUT = re.compile(r"\bsys\.argv\b|\bgetopt\b|\boptparse\b|\binput\s*\(|\bsys\.stdin\b|\bfileinput\b")


def read_python_command(
    command: Command, project: Path, tools_dir: Path, description: str
) -> list[Declaration]:
    """The tools of one declared Python command (one per subcommand of a click group);
    `NotATool` when it declares none toolkiln can read, `DiscoveryError` when broken."""
    module_name, function = command.target.split(":")
    path = module_file(project, module_name)
    if path is None:
        raise NotATool(
            f"{command.table} {command.name} = {command.target!r}: no module {module_name} in the "
            "project folder or its src/",
            kind="no-declaration",
        )
    relative = path.relative_to(tools_dir).as_posix()
    with path.open("rb") as handle:
        data = handle.read(MAX_MODULE_BYTES + 1)
    if len(data) > MAX_MODULE_BYTES:
        raise DiscoveryError(f"is larger than {MAX_MODULE_BYTES // 1024} KiB; not read", path=relative)
    source = data.decode("utf-8", errors="replace")
    try:
        module = ast.parse(source, filename=relative)
    except (SyntaxError, ValueError) as error:
        line = getattr(error, "lineno", None)
        raise DiscoveryError(f"is not valid Python: {error}", path=relative, line=line) from None
    except (MemoryError, RecursionError):
        raise DiscoveryError("nests too deeply to be read", path=relative) from None
    top = function.split(".")[0]
    if not _defines(module, top):
        raise DiscoveryError(
            f"{command.table} {command.name} = {command.target!r}, but {relative} defines no {top}",
            path=relative,
        )
    entry = as_entry_point(module, top)
    frameworks = cli_frameworks(entry)
    if frameworks:
        from toolkiln.conventions.python.execute import read_command_line

        declarations = read_command_line(entry, frameworks, relative)
    elif _READS_INPUT.search(source):
        raise NotATool(
            f"{command.table} {command.name}: {relative} reads its command line by hand; toolkiln reads "
            "click, typer, argparse, docopt and fire entry points",
            kind="no-declaration",
        )
    else:  # takes nothing: a tool with no parameters
        declarations = [Declaration(dialect="python", python_entry="script")]
    doc = _function_doc(module, top)
    return [
        dataclasses.replace(
            declaration,
            description=declaration.description or doc or description,
            companions=(relative,),
        )
        for declaration in declarations
    ]


def as_entry_point(module: ast.Module, function: str) -> ast.Module:
    """`module` as its entry point runs it: its own `__main__` block, top-level calls and
    relative imports set aside, then `if __name__ == "__main__": function()`."""
    from toolkiln.conventions.python_cli.read import is_main_guard

    body: list[ast.stmt] = []
    for index, node in enumerate(module.body):
        docstring = index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if is_main_guard(node) or (isinstance(node, ast.Expr) and not docstring):
            continue
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            continue
        body.append(node)
    line = (module.body[-1].end_lineno or 1) + 1 if module.body else 1
    calls = _wrapped_calls(module, function) or [f"{function}()"]
    guard = ast.parse('if __name__ == "__main__":\n' + "".join(f"    {call}\n" for call in calls)).body[0]
    ast.increment_lineno(guard, line - 1)
    return ast.Module(body=[*body, guard], type_ignores=[])


def _wrapped_calls(module: ast.Module, function: str) -> list[str]:
    """The command a wrapper runs (`def main(): cli(obj={})`, `def run(): typer.run(greet)`):
    its calls of another of the module's names, or of `X.run(name)`; empty when it is none."""
    names = {
        node.name for node in module.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    } | {
        target.id
        for node in module.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    names.discard(function)
    wrapper = next(
        (
            n
            for n in module.body
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == function
        ),
        None,
    )
    calls = []
    for statement in wrapper.body if wrapper else []:
        value = statement.value if isinstance(statement, ast.Expr | ast.Return) else None
        if isinstance(value, ast.Call):
            called = (
                value.func.value
                if isinstance(value.func, ast.Attribute) and value.func.attr == "main"
                else value.func
            )
            runs = isinstance(value.func, ast.Attribute) and value.func.attr == "run" and value.args
            if (isinstance(called, ast.Name) and called.id in names) or (
                runs and isinstance(value.args[0], ast.Name) and value.args[0].id in names
            ):
                calls.append(ast.unparse(value))
    return calls


def _defines(module: ast.Module, name: str) -> bool:
    for node in module.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            return True
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        if any(isinstance(target, ast.Name) and target.id == name for target in targets):
            return True
        if isinstance(node, ast.ImportFrom | ast.Import) and any(
            (alias.asname or alias.name) == name for alias in node.names
        ):
            return True
    return False


def _function_doc(module: ast.Module, name: str) -> str:
    from toolkiln.conventions.python_cli.read import first_paragraph

    for node in module.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return first_paragraph(ast.get_docstring(node))
    return first_paragraph(ast.get_docstring(module))
