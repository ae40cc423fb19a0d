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
by `python_argparse`, `python_click` or `python_typer` and run as a script.
"""

from __future__ import annotations

import ast
import contextlib
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkiln.discover.annotations import TYPE_ALIASES, parse_param_line
from toolkiln.discover.base import HEAD_BYTES, Candidate, Declaration, NotATool, make_parameter
from toolkiln.discover.probe import Probe
from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import PARAM_TYPES, ParamType, PythonEntry, value_matches_type

if TYPE_CHECKING:
    from toolkiln.model import Parameter

CLAIM_IS_CERTAIN = True

_ENTRY = re.compile(r"^(?:async\s+)?def\s+(execute|main)\s*\(\s*(\S?)", re.MULTILINE)
_SELF_DESCRIBING = re.compile(r"""["']--help["']""")
_CLI_IMPORT = re.compile(r"^\s*(?:import|from)\s+(argparse|click|typer)\b", re.MULTILINE)
_PARAM_LINE = re.compile(r"^\s*@param\b\s*(.*)$")
_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Returns|Raises|Example|Examples)\s*:\s*$")
_SPEC_KEYS = ("type", "description", "required", "default", "enum", "min", "max", "items", "secret", "kind")
_HINT_TYPES = {
    "str": "string", "int": "integer", "float": "number", "bool": "boolean", "list": "array",
    "tuple": "array", "dict": "object", "Any": "any", "object": "any",
}  # fmt: skip
_DEFAULT_TYPES: tuple[ParamType, ...] = ("boolean", "integer", "number", "string", "array", "object")


def claims(candidate: Candidate) -> bool:
    """A `.py` file with a top-level `def execute(` or `def main(<param>`, or one that
    imports argparse, click or typer; but not an executable that answers `--help` itself
    (help-json's)."""
    if candidate.path.suffix != ".py":
        return False
    text = candidate.head
    if text and candidate.stat.st_size > HEAD_BYTES and not _ENTRY.search(text):
        with contextlib.suppress(DiscoveryError):  # gone or unreadable since its head was read
            text = _read(candidate.path)
    if candidate.executable and _SELF_DESCRIBING.search(text):
        return False
    if _CLI_IMPORT.search(text):
        return True
    for match in _ENTRY.finditer(text):
        takes_params = match.group(2) not in ("", ")")
        if match.group(1) == "execute" or takes_params or "add_argument(" in text:
            return True
    return False


async def declare(candidate: Candidate, probe: Probe) -> Declaration | None:
    path = candidate.relative_path
    source = _read(candidate.path)
    try:
        module = ast.parse(source, filename=path)
    except SyntaxError as error:
        raise DiscoveryError(f"is not valid Python: {error.msg}", path=path, line=error.lineno) from None
    functions = {
        node.name: node
        for node in module.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in ("execute", "main")
    }
    frameworks = _cli_frameworks(module)
    if "execute" not in functions and frameworks:
        return read_command_line(module, frameworks, path)
    function = functions.get("execute") or functions.get("main")
    if function is None:
        return None
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
    if entry == "execute(**)" and function.name == "main":
        raise DiscoveryError(
            "main() takes one argument, the parameters as a dict", path=path, line=function.lineno
        )
    parameters = (
        _docstring_parameters(module, path)
        or _docstring_parameters(function, path)
        or _inputs_parameters(module, path)
    )
    if parameters is None:
        parameters = _signature_parameters(module, function, one_dict, path)
    return Declaration(dialect="python", description=description, parameters=parameters, python_entry=entry)


def _cli_frameworks(module: ast.Module) -> list[str]:
    """The command-line libraries the module imports, typer and click before argparse."""
    found: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return [name for name in ("typer", "click", "argparse") if name in found]


def read_command_line(module: ast.Module, frameworks: list[str], path: str) -> Declaration:
    """The tool of an argparse, click or typer script; `NotATool` for a library."""
    from toolkiln.discover.python_argparse import read_argparse
    from toolkiln.discover.python_cli import check_standalone
    from toolkiln.discover.python_click import read_click
    from toolkiln.discover.python_typer import read_typer

    check_standalone(module)
    docstring = ast.get_docstring(module) or ""
    for framework in frameworks:
        if framework == "argparse":
            return read_argparse(module, path, docstring)
        declaration = (read_typer if framework == "typer" else read_click)(module, path, docstring)
        if declaration is not None:
            return declaration
    raise NotATool("a Python library (no entry point, no command line)", kind="library")


def _takes_a_dict(module: ast.Module, annotation: ast.expr | None) -> bool:
    """`execute(params)`, `execute(params: dict[str, Any])` or `execute(params: MyTypedDict)`;
    `execute(text: str)` takes its one parameter as a keyword instead."""
    if annotation is None or _typed_dict(module, annotation) is not None:
        return True
    outer = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    return _hint_name(outer) in ("dict", "Dict", "Mapping", "MutableMapping")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise DiscoveryError(f"cannot be read: {error.strerror}", path=str(path)) from None


def _description(docstring: str) -> str:
    """The docstring's first paragraph (up to a blank line, a `@param` line or a section such as `Args:`)."""
    lines = []
    for line in docstring.splitlines():
        if not line.strip() or _PARAM_LINE.match(line) or _SECTION.match(line):
            break
        lines.append(line)
    return "\n".join(lines).strip()


def _docstring_parameters(node: ast.Module | ast.FunctionDef, path: str) -> list[Parameter] | None:
    """`@param` lines of the node's docstring, or None when it has none."""
    first = node.body[0] if node.body else None
    if not (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return None
    parameters = []
    for offset, line in enumerate(first.value.value.splitlines()):
        if match := _PARAM_LINE.match(line):
            parameters.append(parse_param_line(match.group(1), path, first.lineno + offset))
    return parameters or None


def _inputs_parameters(module: ast.Module, path: str) -> list[Parameter] | None:
    """A module-level literal `INPUTS = {"name": {"type": "string", ...}}` (or a list of specs
    with a `name`), or None when there is none."""
    for node in module.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if not (isinstance(target, ast.Name) and target.id == "INPUTS"):
            continue
        line = node.lineno
        try:
            inputs = ast.literal_eval(value)
        except ValueError:
            raise DiscoveryError(
                "INPUTS must be a literal (no names or calls in it)", path=path, line=line
            ) from None
        if isinstance(inputs, list) and all(isinstance(spec, dict) and "name" in spec for spec in inputs):
            inputs = {spec["name"]: {k: v for k, v in spec.items() if k != "name"} for spec in inputs}
        if not isinstance(inputs, dict):
            raise DiscoveryError("INPUTS must be a dict of parameter name to spec", path=path, line=line)
        return [_spec_parameter(name, spec, path, line) for name, spec in inputs.items()]
    return None


def _spec_parameter(name: Any, spec: Any, path: str, line: int) -> Parameter:
    if isinstance(spec, str):
        spec = {"type": spec}
    if not isinstance(name, str) or not isinstance(spec, dict):
        raise DiscoveryError(
            f"INPUTS[{name!r}] must be a dict such as {{'type': 'string'}}", path=path, line=line
        )
    unknown = sorted(set(spec) - set(_SPEC_KEYS))
    if unknown:
        raise DiscoveryError(
            f"INPUTS[{name!r}]: unknown key {unknown[0]!r} (known: {', '.join(_SPEC_KEYS)})",
            path=path,
            line=line,
        )
    fields = dict(spec, name=name)
    fields["type"] = _type_name(str(fields.get("type", "string")), f"INPUTS[{name!r}]", path, line)
    if fields["type"] == "path":
        fields["type"], fields["kind"] = "string", "path"
    if "items" in fields:
        fields["items"] = _type_name(str(fields["items"]), f"INPUTS[{name!r}].items", path, line)
    if fields.get("required"):
        fields.pop("default", None)
    return make_parameter(path, line, **fields)


def _type_name(text: str, where: str, path: str, line: int) -> str:
    name = TYPE_ALIASES.get(text.strip().lower(), text.strip().lower())
    if name == "enum":
        return "string"
    if name not in (*PARAM_TYPES, "path"):
        raise DiscoveryError(
            f"{where}: unknown type {text!r} (known: {', '.join(PARAM_TYPES)}, path)", path=path, line=line
        )
    return name


def _signature_parameters(
    module: ast.Module, function: ast.FunctionDef, one_dict: bool, path: str
) -> list[Parameter]:
    """Parameters from `execute(a: str, b: int = 1)`, or from the `TypedDict` of `execute(params: P)`."""
    if one_dict:
        argument = [*function.args.posonlyargs, *function.args.args][0]
        typed_dict = _typed_dict(module, argument.annotation)
        if typed_dict is None:
            raise DiscoveryError(
                f"{function.name}({argument.arg}) does not say what it takes: add `@param` lines to the "
                "module docstring, an INPUTS dict, or a TypedDict annotation (put `INPUTS = {}` for a tool "
                "without parameters)",
                path=path,
                line=function.lineno,
            )
        return _typed_dict_parameters(typed_dict, path)
    positional = [*function.args.posonlyargs, *function.args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(function.args.defaults))
    defaults += function.args.defaults
    pairs = [
        *zip(positional, defaults, strict=True),
        *zip(function.args.kwonlyargs, function.args.kw_defaults, strict=True),
    ]
    return [_hinted_parameter(arg.arg, arg.annotation, default, path, arg.lineno) for arg, default in pairs]


def _typed_dict(module: ast.Module, annotation: ast.expr | None) -> ast.ClassDef | None:
    if not isinstance(annotation, ast.Name):
        return None
    for node in module.body:
        if isinstance(node, ast.ClassDef) and node.name == annotation.id:
            bases = {
                base.id if isinstance(base, ast.Name) else getattr(base, "attr", "") for base in node.bases
            }
            return node if "TypedDict" in bases else None
    return None


def _typed_dict_parameters(node: ast.ClassDef, path: str) -> list[Parameter]:
    total = not any(
        k.arg == "total" and isinstance(k.value, ast.Constant) and k.value.value is False
        for k in node.keywords
    )
    parameters = []
    for field in node.body:
        if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name):
            annotation, required = _unwrap_required(field.annotation, total)
            parameters.append(
                _hinted_parameter(field.target.id, annotation, None, path, field.lineno, required=required)
            )
    return parameters


def _unwrap_required(annotation: ast.expr, required: bool) -> tuple[ast.expr, bool]:
    if isinstance(annotation, ast.Subscript) and _hint_name(annotation.value) in ("Required", "NotRequired"):
        return annotation.slice, _hint_name(annotation.value) == "Required"
    return annotation, required


def _hinted_parameter(
    name: str,
    annotation: ast.expr | None,
    default: ast.expr | None,
    path: str,
    line: int,
    *,
    required: bool | None = None,
) -> Parameter:
    fields: dict[str, Any] = {"name": name}
    if default is not None:
        try:
            value = ast.literal_eval(default)
        except ValueError:
            raise DiscoveryError(f"the default of {name!r} must be a literal", path=path, line=line) from None
        if value is not None:
            fields["default"] = value
    optional = default is not None
    if annotation is not None:
        annotation, nullable = _unwrap_optional(annotation)
        optional = optional or nullable
        fields.update(_hint_fields(annotation, name, path, line))
    elif "default" in fields:
        fields["type"] = next((t for t in _DEFAULT_TYPES if value_matches_type(fields["default"], t)), "any")
    else:
        fields["type"] = "any"
    fields["required"] = required if required is not None else not optional
    return make_parameter(path, line, **fields)


def _unwrap_optional(annotation: ast.expr) -> tuple[ast.expr, bool]:
    """`X | None` and `Optional[X]` -> (X, True)."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        for side, other in ((annotation.left, annotation.right), (annotation.right, annotation.left)):
            if isinstance(other, ast.Constant) and other.value is None:
                return side, True
    if isinstance(annotation, ast.Subscript) and _hint_name(annotation.value) == "Optional":
        return annotation.slice, True
    return annotation, False


def _hint_fields(annotation: ast.expr, name: str, path: str, line: int) -> dict[str, Any]:
    hint = _hint_name(annotation)
    if hint in _HINT_TYPES:
        return {"type": _HINT_TYPES[hint]}
    if isinstance(annotation, ast.Subscript):
        outer = _hint_name(annotation.value)
        if outer == "Literal":
            values = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
            enum = [ast.literal_eval(value) for value in values]
            kinds = {type(value) for value in enum}
            param_type = "integer" if kinds == {int} else "number" if kinds <= {int, float} else "string"
            return {"type": param_type, "enum": enum}
        if outer in ("list", "List", "Sequence", "tuple", "set"):
            item = annotation.slice.elts[0] if isinstance(annotation.slice, ast.Tuple) else annotation.slice
            item_type = _HINT_TYPES.get(_hint_name(item))
            return {"type": "array", **({"items": item_type} if item_type and item_type != "any" else {})}
        if outer in ("dict", "Dict", "Mapping"):
            return {"type": "object"}
    raise DiscoveryError(
        f"cannot read the type of {name!r} ({ast.unparse(annotation)}): use str, int, float, bool, list, "
        "dict, Literal[...], or declare it with an `@param` line",
        path=path,
        line=line,
    )


def _hint_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):  # typing.Literal, t.Optional
        return node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # "str" (a string annotation)
        return node.value
    return ""
