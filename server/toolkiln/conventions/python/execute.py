"""The python dialect (seeds/004): a module that defines `execute(params)` or `main(params)`.

    \"\"\"Score a sales lead.

    @param company: The company's name (type: string, required: true)
    @param employees: Head count (type: integer, min: 1)
    \"\"\"

    def execute(params: dict) -> dict:
        return {"status": "success", "data": {...}, "metadata": {"cost_usd": 0.0}}

The module is read with `ast` and never imported here. Its parameters come from, in
order: `@param` lines in the module's (or the function's) docstring, in the grammar of
the annotations dialect; a literal `INPUTS` dict; the function's signature and type
hints (`execute(company: str, employees: int = 1)`, or `execute(params: Params)` with a
`TypedDict`). A command-line script (argparse, click or typer, and no `execute`) is read
by `python_cli/read_argparse.py`, `read_click.py` or `read_typer.py` and run as a script.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import re
from typing import TYPE_CHECKING

from toolkiln.conventions.base import HEAD_BYTES, Candidate, Declaration, NotATool, Probe
from toolkiln.conventions.python.docopt_fire import readable_docopt_or_fire
from toolkiln.conventions.python.hints import hint_name, signature_parameters, typed_dict
from toolkiln.conventions.python.inputs import PARAM_LINE, docstring_parameters, inputs_parameters
from toolkiln.conventions.python.syntax import cli_frameworks, parse_module
from toolkiln.conventions.subcommands import with_file_warnings
from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import PythonEntry

if TYPE_CHECKING:
    from toolkiln.conventions.python_cli.siblings import Siblings

CLAIM_IS_CERTAIN = True

_ENTRY = re.compile(r"^(?:async\s+)?def\s+(execute|main)\s*\(\s*(\S?)", re.MULTILINE)
_SELF_DESCRIBING = re.compile(r"""["']--help["']""")
# `main(sys.argv[1:])`: a main that takes the command line as a list, not keywords.
_ARGV_MAIN = re.compile(r"\bmain\s*\(\s*(?:sys\.)?argv\b")
_CLI_IMPORT = re.compile(r"^[ \t]*(?:import|from)[ \t]+(argparse|click|typer|docopt|fire)\b", re.MULTILINE)
_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Returns|Raises|Example|Examples)\s*:\s*$")


def claims(candidate: Candidate) -> bool:
    """A `.py` file with a top-level `def execute(` or `def main(<param>`, or one that
    imports argparse, click or typer; but not an executable that answers `--help` itself
    (help-json's)."""
    if candidate.path.suffix != ".py":
        return False
    text = candidate.head
    if text and candidate.stat.st_size > HEAD_BYTES and not _ENTRY.search(text):
        with contextlib.suppress(DiscoveryError):  # gone or unreadable since its head was read
            text = candidate.text()
    if candidate.executable and _SELF_DESCRIBING.search(text):
        return False
    frameworks = set(_CLI_IMPORT.findall(text))
    if frameworks - {"docopt", "fire"} or (frameworks and readable_docopt_or_fire(text, frameworks)):
        return True
    for match in _ENTRY.finditer(text):
        if match.group(1) == "main" and _ARGV_MAIN.search(text):
            continue  # reads its command line by hand: help-json's, or python_argv's
        takes_params = match.group(2) not in ("", ")")
        if match.group(1) == "execute" or takes_params or "add_argument(" in text:
            return True
    return False


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    path = candidate.relative_path
    module = parse_module(candidate)
    functions = {
        node.name: node
        for node in module.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in ("execute", "main")
    }
    frameworks = cli_frameworks(module)
    if frameworks and "execute" not in functions and not _takes_params(module, functions.get("main")):
        from toolkiln.conventions.python_cli.siblings import Siblings

        siblings = Siblings(candidate.path, path)
        tools = read_command_line(module, frameworks, path, siblings)
        if siblings.read:  # a change to a module it assembles commands from changes its tools
            companions = tuple(sorted(siblings.read.values()))
            tools = [dataclasses.replace(tool, companions=companions) for tool in tools]
        warning = dependency_warning(candidate)
        return with_file_warnings(tools, [warning] if warning else [], after=True)
    function = functions.get("execute") or functions.get("main")
    if function is None:
        return []
    if function.name == "main" and not _takes_params(module, function):
        from toolkiln.conventions.python.run_function import keyword_function

        return [keyword_function(function, module, path)]  # `main(name: str, count: int = 1)`
    if isinstance(function, ast.AsyncFunctionDef):
        raise DiscoveryError(
            f"{function.name}() must be a plain function, not async", path=path, line=function.lineno
        )
    arguments = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
    description = _description(ast.get_docstring(module) or ast.get_docstring(function) or "")
    if not arguments:
        raise DiscoveryError(
            f"{function.name}() takes no arguments: define it as `{function.name}(params)`", path=path,
            line=function.lineno,
        )  # fmt: skip
    one_dict = (
        len(arguments) == 1
        and _takes_a_dict(module, arguments[0].annotation)
        and not function.args.kwonlyargs
    )
    entry: PythonEntry = function.name if one_dict else "execute(**)"  # type: ignore[assignment]
    parameters = (
        docstring_parameters(module, path)
        or docstring_parameters(function, path)
        or inputs_parameters(module, path)
    )
    if parameters is None:
        parameters = signature_parameters(module, function, one_dict, path)
    return [Declaration(dialect="python", description=description, parameters=parameters, python_entry=entry)]


def dependency_warning(candidate: Candidate) -> DiscoveryError | None:
    """A script run as a process that declares its dependencies inline (PEP 723) runs with
    `uv run --script`: without uv, say that they must be in toolkiln's own Python."""
    from toolkiln.interpreters import declares_dependencies, find_uv

    if not declares_dependencies(candidate.path) or find_uv():
        return None
    return DiscoveryError(
        "declares its dependencies inline (`# /// script`) and uv is not installed: it runs with "
        "toolkiln's Python, which must have them (install uv to have them installed for it)",
        path=candidate.relative_path,
    )


def _takes_params(module: ast.Module, main: ast.FunctionDef | ast.AsyncFunctionDef | None) -> bool:
    """`main(params)` or `main(p: dict)` (seeds/004), not `main(args)` or `main(argv=None)`
    of a command-line script that also uses argparse or click."""
    if main is None:
        return False
    positional = [*main.args.posonlyargs, *main.args.args]
    if len(positional) != 1 or main.args.defaults:
        return False
    argument = positional[0]
    if argument.annotation is not None:
        return _takes_a_dict(module, argument.annotation)
    return argument.arg in ("params", "parameters", "inputs", "arguments")


def read_command_line(
    module: ast.Module, frameworks: list[str], path: str, siblings: Siblings | None = None
) -> list[Declaration]:
    """The tool of an argparse, click or typer script (one per subcommand); `NotATool`
    for a library."""
    from toolkiln.conventions.python.docopt_fire import read_docopt_or_fire
    from toolkiln.conventions.python_cli.read import check_standalone
    from toolkiln.conventions.python_cli.read_argparse import read_argparse
    from toolkiln.conventions.python_cli.read_click import read_click
    from toolkiln.conventions.python_cli.read_typer import read_typer

    check_standalone(module)
    docstring = ast.get_docstring(module) or ""
    for framework in frameworks:
        if framework == "argparse":
            return read_argparse(module, path, docstring)
        if framework in ("docopt", "fire"):
            return read_docopt_or_fire(module, framework, path)
        declarations = (
            read_typer(module, path, docstring, siblings)
            if framework == "typer"
            else read_click(module, path, docstring)
        )
        if declarations:
            return declarations
    raise NotATool("a Python library (no entry point, no command line)", kind="library")


def _takes_a_dict(module: ast.Module, annotation: ast.expr | None) -> bool:
    """`execute(params)`, `execute(params: dict[str, Any])` or `execute(params: MyTypedDict)`;
    `execute(text: str)` takes its one parameter as a keyword instead."""
    if annotation is None or typed_dict(module, annotation) is not None:
        return True
    outer = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    return hint_name(outer) in ("dict", "Dict", "Mapping", "MutableMapping")


def _description(docstring: str) -> str:
    """The docstring's first paragraph (up to a blank line, a `@param` line or a section such as `Args:`)."""
    lines = []
    for line in docstring.splitlines():
        if not line.strip() or PARAM_LINE.match(line) or _SECTION.match(line):
            break
        lines.append(line)
    return "\n".join(lines).strip()
