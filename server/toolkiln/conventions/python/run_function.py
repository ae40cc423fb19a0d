"""Function-style Python tools (sigoden/llm-functions `tools/*.py`): a module whose
top-level `def run(...)` is the tool, its signature the parameters, its docstring the
description and (Google style `Args:`, or `:param name:` lines) what each one means.

    def run(city: str, days: int = 3, units: Literal["metric", "imperial"] = "metric"):
        \"\"\"Get the weather forecast.
        Args:
            city: The city's name
            days: How many days ahead
        \"\"\"
        return f"..."

The module is read with `ast`, never imported. A parameter is required unless it has
a default or is `Optional[...]`. A parameter without a type hint takes its type from
the docstring (`city (str): ...`), else it is a string, as llm-functions has it. The
runner calls `run(**arguments)` on a warm worker (python_entry `run(**)`); what it
returns (and prints) is the result.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import re
from typing import TYPE_CHECKING

from toolkiln.conventions.base import HEAD_BYTES, Candidate, Declaration, NotATool, Probe
from toolkiln.conventions.python.hints import hinted_parameter, typed_dict_names
from toolkiln.conventions.python.syntax import parse_module
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.model import Parameter

CLAIM_IS_CERTAIN = True

_SELF_DESCRIBING = re.compile(r"""["']--help["']""")
_RUN = re.compile(r"^(?:async[ \t]+)?def[ \t]+run[ \t]*\(", re.MULTILINE)
_PUBLIC_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+[A-Za-z]\w*[ \t]*\(", re.MULTILINE)
# llm-functions' agents keep their tools in `tools.py`: each public function is a tool.
AGENT_TOOLS_FILE = "tools.py"
_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Returns?|Yields?|Raises|"
    r"Examples?|Notes?|Attributes|See Also)\s*:?\s*$"
)
_ARGS_SECTIONS = ("args", "arguments", "parameters", "params", "keyword args", "keyword arguments")
# `name: text`, `name (str): text`, `name (list[str], optional): text`
_GOOGLE_ARG = re.compile(r"^(?P<name>\*{0,2}[A-Za-z_]\w*)\s*(?:\((?P<type>[^)]*)\))?\s*:\s*(?P<text>.*)$")
_REST_PARAM = re.compile(r"^\s*:param\s+(?:(?P<type>[^:]+?)\s+)?(?P<name>[A-Za-z_]\w*)\s*:\s*(?P<text>.*)$")
_REST_TYPE = re.compile(r"^\s*:type\s+(?P<name>[A-Za-z_]\w*)\s*:\s*(?P<type>.*)$")
_NUMPY_ARG = re.compile(r"^(?P<name>[A-Za-z_]\w*)\s*:\s*(?P<type>.+)$")


def claims(candidate: Candidate) -> bool:
    """A `.py` file with a top-level `def run(` (python/execute.py, the reader asked first,
    takes `execute`/`main` modules), but not an executable that answers `--help` itself."""
    if candidate.path.suffix != ".py":
        return False
    text = candidate.head
    if text and candidate.stat.st_size > HEAD_BYTES and not _RUN.search(text):
        with contextlib.suppress(DiscoveryError):
            text = candidate.text()
    if candidate.executable and _SELF_DESCRIBING.search(text):
        return False  # it answers `--help` itself: help-json's
    if candidate.path.name == AGENT_TOOLS_FILE:
        return _PUBLIC_DEF.search(text) is not None
    return _RUN.search(text) is not None


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    path = candidate.relative_path
    module = parse_module(candidate)
    if candidate.path.name == AGENT_TOOLS_FILE and not _RUN.search(candidate.text()):
        return _agent_tools(module, path)
    function = next(
        (
            node
            for node in module.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "run"
        ),
        None,
    )
    if function is None:
        raise NotATool("has no top-level `def run(...)`", kind="no-declaration")
    if _calls_run(module):
        raise NotATool(
            "calls its own run() when it is imported: a script, not a function tool", kind="python-script"
        )
    docstring = ast.get_docstring(function) or ""
    if not docstring and not _is_typed(function):
        raise NotATool(
            "its run() has neither a docstring nor type hints: a helper, not a function tool (give "
            "run() a docstring that says what the tool does)",
            kind="python-helper",
        )
    return [_declaration(function, module, docstring, _description(ast.get_docstring(module) or ""), path)]


def _agent_tools(module: ast.Module, path: str) -> list[Declaration]:
    """An llm-functions agent's `tools.py`: each public, documented function is a tool,
    named after the function, as the agent's model knows it."""
    functions = [
        node
        for node in module.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_")
    ]
    documented = [function for function in functions if ast.get_docstring(function)]
    if not documented:
        raise NotATool("an agent's tools.py whose functions have no docstrings", kind="python-helper")
    return [
        dataclasses.replace(
            _declaration(function, module, ast.get_docstring(function) or "", "", path),
            command=function.name,
            name=function.name,
        )
        for function in documented
    ]


def keyword_function(
    function: ast.FunctionDef | ast.AsyncFunctionDef, module: ast.Module, path: str
) -> Declaration:
    """Another function called with keywords, as `run` is (Windmill's `def main(name: str,
    count: int = 1)`): the tool runs that function (`command`) with each argument a keyword."""
    fallback = _description(ast.get_docstring(module) or "")
    declaration = _declaration(function, module, ast.get_docstring(function) or "", fallback, path)
    return dataclasses.replace(declaration, command=function.name)


def _declaration(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    module: ast.Module,
    docstring: str,
    fallback: str,
    path: str,
) -> Declaration:
    documented = _documented_arguments(docstring)
    parameters, warnings = _parameters(function, documented, typed_dict_names(module), path)
    return Declaration(
        dialect="python",
        description=_description(docstring) or fallback,
        parameters=parameters,
        python_entry="run(**)",
        warnings=warnings,
    )


def _calls_run(module: ast.Module) -> bool:
    """A top-level statement (outside `if __name__ == "__main__":`) that calls run()."""
    for node in module.body:
        if isinstance(node, ast.If | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "run":
                return True
    return False


def _is_typed(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    arguments = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
    return bool(arguments) and all(argument.annotation is not None for argument in arguments)


def _description(docstring: str) -> str:
    """Everything before the first section (`Args:`, `Returns:`, `:param`, ...)."""
    lines = []
    for line in docstring.splitlines():
        if _SECTION.match(line) or line.lstrip().startswith((":param", ":type", ":return", "@param")):
            break
        lines.append(line.rstrip())
    return "\n".join(lines).strip()


def _documented_arguments(docstring: str) -> dict[str, tuple[str, str]]:
    """What the docstring says of each argument, name -> (type text, description): from
    a Google-style `Args:` section, a numpy-style `Parameters` one, or `:param:` lines."""
    found: dict[str, tuple[str, str]] = {}
    more: dict[str, list[str]] = {}  # continuation lines, joined once at the end
    lines = docstring.splitlines()
    section, numpy, base, last = "", False, -1, ""
    for index, line in enumerate(lines):
        stripped, indent = line.strip(), len(line) - len(line.lstrip())
        if match := _REST_PARAM.match(line):
            last, section = match["name"], "rest"
            found[last] = (match["type"] or found.get(last, ("", ""))[0], match["text"].strip())
            more.pop(last, None)
            continue
        if match := _REST_TYPE.match(line):
            found[match["name"]] = (match["type"].strip(), found.get(match["name"], ("", ""))[1])
            continue
        if match := _SECTION.match(line):
            section, base, last = match.group(1).lower(), -1, ""
            numpy = index + 1 < len(lines) and set(lines[index + 1].strip()) == {"-"}
            continue
        if not stripped or set(stripped) == {"-"}:
            continue
        if section == "rest" or (section in _ARGS_SECTIONS and base >= 0 and indent > base):
            if last and (section != "rest" or indent > 0):  # a continuation of the last argument
                more.setdefault(last, []).append(stripped)
            continue
        if section not in _ARGS_SECTIONS:
            continue
        if base >= 0 and indent < base:  # back out of the section
            section = ""
            continue
        base = indent
        if numpy and (match := _NUMPY_ARG.match(stripped)):
            last = match["name"]
            found[last] = (match["type"].strip(), "")
            more.pop(last, None)
        elif match := _GOOGLE_ARG.match(stripped):
            last = match["name"].lstrip("*")
            found[last] = ((match["type"] or "").strip(), match["text"].strip())
            more.pop(last, None)
    for name, lines_after in more.items():
        type_text, text = found[name]
        found[name] = (type_text, " ".join([text, *lines_after]).strip())
    return found


def _parameters(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    documented: dict[str, tuple[str, str]],
    objects: frozenset[str],
    path: str,
) -> tuple[list[Parameter], list[DiscoveryError]]:
    """Each argument of run() (not `*args`, `**kwargs`) as a parameter. One whose type
    cannot be read is an error when it is required, and left out (Python's default
    applies) with a warning when it is not."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    defaults += arguments.defaults
    pairs = [
        *zip(positional, defaults, strict=True),
        *zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True),
    ]
    parameters: list[Parameter] = []
    warnings: list[DiscoveryError] = []
    for argument, default in pairs:
        type_text, text = documented.get(argument.arg, ("", ""))
        annotation, optional = argument.annotation, False
        if annotation is None:
            annotation, optional = _documented_type(type_text)
        try:
            parameter = hinted_parameter(
                argument.arg, annotation, default, path, argument.lineno, description=text, objects=objects
            )
        except DiscoveryError as error:
            if default is None and not optional:
                raise
            warnings.append(
                DiscoveryError(
                    f"{error.reason}; the optional {argument.arg!r} is left out", path=path, line=error.line
                )
            )
            continue
        if optional and parameter.required:
            parameter = parameter.model_copy(update={"required": False})
        parameters.append(parameter)
    return parameters, warnings


def _split_type(text: str) -> list[str]:
    """`text` split at each comma that is not inside `[...]` (`list[str, int], optional`):
    a comma with a `]` after it before any `[`. One pass from the end, where a pattern's
    look-ahead read the rest of the text again from each comma."""
    cuts, closed = [], False
    for index in range(len(text) - 1, -1, -1):
        char = text[index]
        if char == "]":
            closed = True
        elif char == "[":
            closed = False
        elif char == "," and not closed:
            cuts.append(index)
    pieces, end = [], len(text)
    for cut in cuts:
        pieces.append(text[cut + 1 : end])
        end = cut
    pieces.append(text[:end])
    return pieces[::-1]


def _documented_type(type_text: str) -> tuple[ast.expr, bool]:
    """The annotation a docstring's type means (`str`, `list[str], optional`,
    `'a'|'b'`, `{"a", "b"}`), and whether it says optional; a string when it says none."""
    words = [word.strip() for word in _split_type(type_text)]
    optional = any(word.lower() == "optional" or word.lower().startswith("default") for word in words[1:])
    text = words[0] if words and words[0] else "str"
    choices = re.fullmatch(r"\{(.*)\}|((?:'[^']*'|\"[^\"]*\")(?:\s*\|\s*(?:'[^']*'|\"[^\"]*\"))+)", text)
    if choices:
        text = f"Literal[{(choices.group(1) or choices.group(2)).replace('|', ',')}]"
    try:
        return ast.parse(text, mode="eval").body, optional
    except SyntaxError:
        return ast.Name("str"), optional
