"""typer scripts, read with `ast` (never imported): `typer.run(main)`, or `app = typer.Typer()`
with `@app.command()` functions (and `@app.callback()` for the options before the
subcommand), and apps added to it (`app.add_typer(users_app, name="users")`: the tools
`users create`, ...); each function parameter is a CLI argument or option, from its type hint and
its default (`typer.Option(...)`, `typer.Argument(...)`, or inside `Annotated[...]`).

As typer spells them (its docs, "CLI Option Name" and "Boolean CLI Options"): a parameter
`user_name` is `--user-name`; a `bool` is `--force/--no-force` unless its names are
given; a parameter without a default is a required argument, one with a default an
option; `List[str]` is an option given once per item; an `Enum` gives its values.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from toolkiln.conventions.base import Declaration
from toolkiln.conventions.python_cli.commands import Command, add_parameter, called_commands, declare_commands
from toolkiln.conventions.python_cli.read import Reading, module_constants
from toolkiln.conventions.python_cli.typer_apps import nest_added_apps, sibling_apps
from toolkiln.vocabulary import ParamType

if TYPE_CHECKING:
    from toolkiln.conventions.python_cli.siblings import Siblings

_TYPES: dict[str, ParamType] = {
    "str": "string", "int": "integer", "float": "number", "bool": "boolean", "Path": "string",
    "UUID": "string", "datetime": "string",
}  # fmt: skip
_SKIPPED_TYPES = ("Context", "typer.Context", "click.Context")


def read_typer(
    module: ast.Module, path: str, docstring: str, siblings: Siblings | None = None
) -> list[Declaration]:
    """The tool a typer script declares (one per command of an app with several); none
    when it declares no typer command. `siblings` loads the modules beside it whose apps
    it adds (`app.add_typer(users.app, name="users")`)."""
    found = _typer_apps(module, path)
    if found is None:
        return []
    apps, entries, runs, reading = found
    imported = sibling_apps(module, siblings, _typer_apps)
    nest_added_apps(module, apps, entries, reading, imported)
    return declare_commands(entries, runs, path, docstring, "typer")


def _typer_apps(
    module: ast.Module, path: str
) -> tuple[dict[str, ast.Assign], dict[str, Command], list[tuple[str, int]], Reading] | None:
    """A module's typer apps (by variable), its commands and apps as entries, the commands
    it calls when it runs, and a reading for its warnings; None when it has no command."""
    constants = module_constants(module)
    enums = _enums(module)
    apps = {
        ast.unparse(node.targets[0]): node
        for node in ast.walk(module)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and _is_typer_app(node.value)
    }
    commands: dict[str, Command] = {}
    callbacks: dict[str, Command] = {}
    for node in module.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if not (isinstance(target, ast.Attribute) and ast.unparse(target.value) in apps):
                continue
            app = ast.unparse(target.value)
            if target.attr in ("command", "callback"):
                reading = Reading(path, constants)
                _read_signature(node, reading, enums)
                keywords = (
                    {k.arg: k.value for k in decorator.keywords if k.arg}
                    if isinstance(decorator, ast.Call)
                    else {}
                )
                name = reading.literal(
                    decorator.args[0]
                    if isinstance(decorator, ast.Call) and decorator.args
                    else keywords.get("name")
                )
                text = reading.literal(keywords.get("help"), "") or ast.get_docstring(node) or ""
                command = Command(
                    node.name, name if isinstance(name, str) else node.name.lower().replace("_", "-"),
                    text, node.lineno, reading, parent=app,
                    optional_command=reading.literal(keywords.get("invoke_without_command"), False) is True,
                )  # fmt: skip
                (callbacks if target.attr == "callback" else commands)[f"{app}:{node.name}"] = command
    runs = [(name, line) for name, line in called_commands(module, set(apps)) if name in apps]
    for name, line in called_commands(
        module, {n.name for n in module.body if isinstance(n, ast.FunctionDef)}
    ):
        if _is_typer_run(module, line):
            function = next(n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == name)
            reading = Reading(path, constants)
            _read_signature(function, reading, enums)
            commands[name] = Command(name, name, ast.get_docstring(function) or "", function.lineno, reading)
            runs.append((name, line))
    if not commands and not runs:
        return None
    entries: dict[str, Command] = {
        key: command for key, command in commands.items() if command.parent is None
    }
    for app, node in apps.items():
        own = [c for c in commands.values() if c.parent == app]
        callback = next((c for c in callbacks.values() if c.parent == app), None)
        if callback is None and len(own) == 1:  # one command: typer runs it without a name
            single = own[0]
            entries[app] = Command(app, single.name, single.description, single.line, single.reading)
            continue
        top = callback.reading if callback else Reading(path, constants)
        app_keywords = {k.arg: k.value for k in node.value.keywords if k.arg}  # type: ignore[attr-defined]
        help_text = app_keywords.get("help")
        without = top.literal(app_keywords.get("invoke_without_command"), False) is True
        description = top.literal(help_text, "") or (callback.description if callback else "")
        entries[app] = Command(
            app, app, description, node.lineno, top, group=True, children=own,
            optional_command=callback is not None and (callback.optional_command or without),
        )  # fmt: skip
    for command in commands.values():
        command.parent = None  # children are listed on their app already
    return apps, entries, runs, Reading(path, constants)


def _is_typer_app(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and ast.unparse(node.func) in ("typer.Typer", "Typer")


def _is_typer_run(module: ast.Module, line: int) -> bool:
    return any(
        isinstance(node, ast.Call) and node.lineno == line and ast.unparse(node.func) in ("typer.run", "run")
        for node in ast.walk(module)
    )


def _enums(module: ast.Module) -> dict[str, list[Any]]:
    """`class Color(str, Enum): red = "red"`: the values of each Enum class."""
    enums = {}
    for node in ast.walk(module):
        if isinstance(node, ast.ClassDef) and any(ast.unparse(base).endswith("Enum") for base in node.bases):
            values = []
            for item in node.body:
                if isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant):
                    values.append(item.value.value)
            if values:
                enums[node.name] = values
    return enums


def _read_signature(
    function: ast.FunctionDef | ast.AsyncFunctionDef, reading: Reading, enums: dict[str, list[Any]]
) -> None:
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults)) + list(
        arguments.defaults
    )
    pairs = [
        *zip(positional, defaults, strict=True),
        *zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True),
    ]
    for argument, default in pairs:
        _read_parameter(argument, default, reading, enums)


def _marker(node: ast.expr | None) -> tuple[str, ast.Call] | None:
    if isinstance(node, ast.Call):
        name = ast.unparse(node.func).rsplit(".", 1)[-1]
        if name in ("Option", "Argument"):
            return name, node
    return None


def _read_parameter(
    argument: ast.arg, default: ast.expr | None, reading: Reading, enums: dict[str, list[Any]]
) -> None:
    line = argument.lineno
    what = f"parameter {argument.arg!r}"
    annotation = argument.annotation
    marker = _marker(default)
    decls_from = 1  # `typer.Option(default, "--name")`: the first argument is the default
    if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value).endswith("Annotated"):
        elements = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        annotation = elements[0]
        marker = next((m for m in map(_marker, elements[1:]) if m), None) or marker
        decls_from = 0
    if annotation is not None and ast.unparse(annotation) in _SKIPPED_TYPES:
        return
    kind, call = marker if marker else ("Option" if default is not None else "Argument", None)
    keywords = {k.arg: k.value for k in call.keywords if k.arg} if call else {}
    value_node: ast.expr | None = default
    if call is not None and call is default:
        value_node = call.args[0] if call.args else keywords.get("default")
    missing = value_node is None or (isinstance(value_node, ast.Constant) and value_node.value is Ellipsis)
    missing = missing and "default_factory" not in keywords  # the factory makes the default
    value = None if missing else reading.literal(value_node)
    decls = [reading.literal(arg) for arg in (call.args[decls_from:] if call else [])]
    decls = [decl for decl in decls if isinstance(decl, str)]
    hint, optional = _unwrap_optional(annotation)
    fields: dict[str, Any] = {
        "name": argument.arg,
        "description": reading.literal(keywords.get("help"), "") or "",
    }
    prompt = keywords.get("prompt") is not None and reading.literal(keywords.get("prompt")) is not False
    fields["required"] = (missing and not optional) or prompt
    item_type, array = _hint_type(hint, fields, enums)
    if item_type is None:
        reading.cannot_represent(
            what,
            f"its type {ast.unparse(hint) if hint else '?'} is not one toolkiln can pass",
            line,
            required=fields["required"],
        )
        return
    if kind == "Argument":
        fields["option"] = ""
        fields.update(type="array", items=item_type) if array else fields.update(type=item_type)
        fields["default"] = value
        add_parameter(reading, line, fields, what)
        return
    long_decls = [part for decl in decls for part in decl.split("/")[:1] if part.startswith("--")]
    option = (
        long_decls or [d for d in decls if d.startswith("-")] or ["--" + argument.arg.replace("_", "-")]
    )[0]
    if item_type == "boolean" and not array:
        negative = next((decl.split("/", 1)[1].strip() for decl in decls if "/" in decl), None)
        if not decls:
            negative = "--no-" + option[2:]
        fields.update(
            type="boolean",
            option_form="flag",
            required=False,
            default=value if isinstance(value, bool) else False,
        )
        fields["option"] = f"{option}/{negative}" if negative else option
    elif array:
        fields.update(type="array", items=item_type, option_form="repeat", option=option)
        fields["default"] = list(value) if isinstance(value, list | tuple) and value else None
    else:
        fields.update(type=item_type, option=option, default=value)
    add_parameter(reading, line, fields, what)


def _unwrap_optional(node: ast.expr | None) -> tuple[ast.expr | None, bool]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        for side, other in ((node.left, node.right), (node.right, node.left)):
            if isinstance(other, ast.Constant) and other.value is None:
                return side, True
    if isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith("Optional"):
        return node.slice, True
    return node, False


def _hint_type(
    hint: ast.expr | None, fields: dict[str, Any], enums: dict[str, list[Any]]
) -> tuple[ParamType | None, bool]:
    """(the value type, whether it is a list); None for a type that cannot be passed."""
    if hint is None:
        return "string", False
    if isinstance(hint, ast.Subscript):
        outer = ast.unparse(hint.value).rsplit(".", 1)[-1]
        if outer in ("List", "list", "Sequence", "Set", "set"):
            inner, _ = _hint_type(hint.slice, fields, enums)
            return (inner if inner != "boolean" else None), True
        if outer == "Literal":
            values = hint.slice.elts if isinstance(hint.slice, ast.Tuple) else [hint.slice]
            literal = [v.value for v in values if isinstance(v, ast.Constant)]
            if literal and all(isinstance(v, str) for v in literal):
                fields["enum"] = literal
                return "string", False
        return None, False
    name = ast.unparse(hint).rsplit(".", 1)[-1]
    if name in enums:
        if all(isinstance(value, str) for value in enums[name]):
            fields["enum"] = enums[name]
            return "string", False
        return "string", False
    return _TYPES.get(name), False
