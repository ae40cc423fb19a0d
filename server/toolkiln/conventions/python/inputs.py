"""Where an `execute(params)` tool (seeds/004, `python/execute.py`) writes its parameters
down, when not in its signature: `@param` lines in a docstring, in the grammar of the
annotations convention, or a literal `INPUTS` dict:

    INPUTS = {"company": {"type": "string", "required": True}, "employees": "integer"}
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Any

from toolkiln.conventions.annotations.read import TYPE_ALIASES, parse_param_line
from toolkiln.conventions.base import make_parameter
from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import PARAM_TYPES

if TYPE_CHECKING:
    from toolkiln.model import Parameter

PARAM_LINE = re.compile(r"^\s*@param\b\s*(.*)$")
_SPEC_KEYS = (
    "type",
    "description",
    "required",
    "default",
    "enum",
    "min",
    "max",
    "items",
    "secret",
    "kind",
    "multiline",
)


def docstring_parameters(node: ast.Module | ast.FunctionDef, path: str) -> list[Parameter] | None:
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
        if match := PARAM_LINE.match(line):
            parameters.append(parse_param_line(match.group(1), path, first.lineno + offset))
    return parameters or None


def inputs_parameters(module: ast.Module, path: str) -> list[Parameter] | None:
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
