"""Parameters from Python type hints, read with `ast`: a function's signature
(`execute(company: str, employees: int = 1)`) or the `TypedDict` of `execute(params: P)`.
Shared by the readers of functions (`execute.py`, `run_function.py`)."""

from __future__ import annotations

import ast
import contextlib
from typing import TYPE_CHECKING, Any

from toolkiln.conventions.base import make_parameter
from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import ParamType, value_matches_type

if TYPE_CHECKING:
    from toolkiln.model import Parameter

HINT_TYPES = {
    "str": "string", "int": "integer", "float": "number", "bool": "boolean", "list": "array",
    "tuple": "array", "dict": "object", "Any": "any", "object": "any",
}  # fmt: skip
_DEFAULT_TYPES: tuple[ParamType, ...] = ("boolean", "integer", "number", "string", "array", "object")


def signature_parameters(
    module: ast.Module, function: ast.FunctionDef, one_dict: bool, path: str
) -> list[Parameter]:
    """Parameters from `execute(a: str, b: int = 1)`, or from the `TypedDict` of `execute(params: P)`."""
    if one_dict:
        argument = [*function.args.posonlyargs, *function.args.args][0]
        declared = typed_dict(module, argument.annotation)
        if declared is None:
            raise DiscoveryError(
                f"{function.name}({argument.arg}) does not say what it takes: add `@param` lines to the "
                "module docstring, an INPUTS dict, or a TypedDict annotation (put `INPUTS = {}` for a tool "
                "without parameters)",
                path=path,
                line=function.lineno,
            )
        return typed_dict_parameters(declared, path)
    positional = [*function.args.posonlyargs, *function.args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(function.args.defaults))
    defaults += function.args.defaults
    pairs = [
        *zip(positional, defaults, strict=True),
        *zip(function.args.kwonlyargs, function.args.kw_defaults, strict=True),
    ]
    objects = typed_dict_names(module)
    return [
        hinted_parameter(arg.arg, arg.annotation, default, path, arg.lineno, objects=objects)
        for arg, default in pairs
    ]


def typed_dict(module: ast.Module, annotation: ast.expr | None) -> ast.ClassDef | None:
    if not isinstance(annotation, ast.Name):
        return None
    for node in module.body:
        if isinstance(node, ast.ClassDef) and node.name == annotation.id:
            bases = {
                base.id if isinstance(base, ast.Name) else getattr(base, "attr", "") for base in node.bases
            }
            return node if "TypedDict" in bases else None
    return None


def typed_dict_names(module: ast.Module) -> frozenset[str]:
    """The module's top-level `TypedDict` classes: Windmill passes a resource as a dict
    typed by one (`class postgresql(TypedDict): host: str ...`, `def main(db: postgresql)`)."""
    return frozenset(
        node.name
        for node in module.body
        if isinstance(node, ast.ClassDef) and typed_dict(module, ast.Name(node.name)) is not None
    )


def typed_dict_parameters(node: ast.ClassDef, path: str) -> list[Parameter]:
    total = not any(
        k.arg == "total" and isinstance(k.value, ast.Constant) and k.value.value is False
        for k in node.keywords
    )
    parameters = []
    for field in node.body:
        if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name):
            annotation, required = unwrap_required(field.annotation, total)
            parameters.append(
                hinted_parameter(field.target.id, annotation, None, path, field.lineno, required=required)
            )
    return parameters


def unwrap_required(annotation: ast.expr, required: bool) -> tuple[ast.expr, bool]:
    if isinstance(annotation, ast.Subscript) and hint_name(annotation.value) in ("Required", "NotRequired"):
        return annotation.slice, hint_name(annotation.value) == "Required"
    return annotation, required


def hinted_parameter(
    name: str,
    annotation: ast.expr | None,
    default: ast.expr | None,
    path: str,
    line: int,
    *,
    required: bool | None = None,
    description: str = "",
    objects: frozenset[str] = frozenset(),
) -> Parameter:
    """A parameter from a type hint and a default; a default that is not a literal
    (`limit: int = DEFAULT_LIMIT`) makes the parameter optional, and Python applies it.
    A hint naming one of `objects` (the module's `TypedDict` classes) is an object."""
    fields: dict[str, Any] = {"name": name, **({"description": description} if description else {})}
    if default is not None:
        with contextlib.suppress(ValueError, SyntaxError):
            value = ast.literal_eval(default)
            if value is not None:
                fields["default"] = value
    optional = default is not None
    if annotation is not None:
        annotation, nullable = unwrap_optional(annotation)
        optional = optional or nullable
        if hint_name(annotation) in objects:
            fields["type"] = "object"
        else:
            fields.update(hint_fields(annotation, name, path, line))
    elif "default" in fields:
        fields["type"] = next((t for t in _DEFAULT_TYPES if value_matches_type(fields["default"], t)), "any")
    else:
        fields["type"] = "any"
    fields["required"] = required if required is not None else not optional
    return make_parameter(path, line, **fields)


def unwrap_optional(annotation: ast.expr) -> tuple[ast.expr, bool]:
    """`X | None`, `Optional[X]` and `Union[X, None]` -> (X, True)."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        for side, other in ((annotation.left, annotation.right), (annotation.right, annotation.left)):
            if isinstance(other, ast.Constant) and other.value is None:
                return side, True
    if isinstance(annotation, ast.Subscript) and hint_name(annotation.value) == "Optional":
        return annotation.slice, True
    if isinstance(annotation, ast.Subscript) and hint_name(annotation.value) == "Union":
        members = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else []
        others = [m for m in members if not (isinstance(m, ast.Constant) and m.value is None)]
        if len(others) == 1 and len(members) == 2:  # Union[X, None]
            return others[0], True
    return annotation, False


def hint_fields(annotation: ast.expr, name: str, path: str, line: int) -> dict[str, Any]:
    hint = hint_name(annotation)
    if hint in HINT_TYPES:
        return {"type": HINT_TYPES[hint]}
    if isinstance(annotation, ast.Subscript):
        outer = hint_name(annotation.value)
        if outer == "Literal":
            values = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
            enum = [ast.literal_eval(value) for value in values]
            kinds = {type(value) for value in enum}
            param_type = "integer" if kinds == {int} else "number" if kinds <= {int, float} else "string"
            return {"type": param_type, "enum": enum}
        if outer in ("list", "List", "Sequence", "tuple", "set"):
            item = annotation.slice.elts[0] if isinstance(annotation.slice, ast.Tuple) else annotation.slice
            item_type = HINT_TYPES.get(hint_name(item))
            return {"type": "array", **({"items": item_type} if item_type and item_type != "any" else {})}
        if outer in ("dict", "Dict", "Mapping"):
            return {"type": "object"}
    raise DiscoveryError(
        f"cannot read the type of {name!r} ({ast.unparse(annotation)}): use str, int, float, bool, list, "
        "dict, Literal[...], or declare it with an `@param` line",
        path=path,
        line=line,
    )


def hint_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):  # typing.Literal, t.Optional
        return node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # "str" (a string annotation)
        return node.value
    return ""
