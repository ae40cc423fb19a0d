"""click scripts, read with `ast` (never imported): `@click.command()` (or `@click.group()`
and its `@cli.command()` subcommands) with `@click.option(...)` and `@click.argument(...)`
decorators, and the command that the script calls when it runs (`cli()` under
`if __name__ == "__main__":`; found, with what click shares with typer, by
`python_commands`).

As click spells them on the command line: a command's name is its function's, lower
case, `_` made `-` and a `_command`/`_cmd`/`_group`/`_grp` suffix dropped (click 8.2);
an option's name is its identifier or its first long flag; `--shout/--no-shout` is a
flag with a negative form; `multiple=True` is an array given as one option per item.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from toolkiln.conventions.base import Declaration
from toolkiln.conventions.python_cli.commands import Command, add_parameter, called_commands, declare_commands
from toolkiln.conventions.python_cli.read import Reading, first_paragraph, module_constants
from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import ParamType, value_matches_type

_CLICK_TYPES: dict[str, ParamType] = {
    "INT": "integer", "int": "integer", "IntRange": "integer", "FLOAT": "number", "float": "number",
    "FloatRange": "number", "STRING": "string", "str": "string",
}  # fmt: skip
_SUFFIX = re.compile(r"_(command|cmd|group|grp)$")
_SKIPPED = ("version_option", "help_option", "pass_context", "pass_obj", "make_pass_decorator")
_KNOWN = (*_SKIPPED, "option", "argument", "password_option", "confirmation_option", "wraps")


def read_click(module: ast.Module, path: str, docstring: str) -> list[Declaration]:
    """The tool a click script declares (one per subcommand of a group); none when it
    declares no click command."""
    constants = module_constants(module)
    commands: dict[str, Command] = {}
    for node in module.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            command = _click_command(node, Reading(path, constants))
            if command is not None:
                commands[node.name] = command
    if not commands:
        return []
    _attach_added(module, commands)
    return declare_commands(commands, called_commands(module, set(commands)), path, docstring, "click")


def _click_command(function: ast.FunctionDef | ast.AsyncFunctionDef, reading: Reading) -> Command | None:
    kind, parent, call = None, None, None
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        method = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if method in ("command", "group"):
            kind, call = method, decorator if isinstance(decorator, ast.Call) else None
            owner = target.value if isinstance(target, ast.Attribute) else None
            if isinstance(owner, ast.Name) and owner.id != "click":
                parent = owner.id
    if kind is None:
        return None
    keywords = {k.arg: k.value for k in call.keywords if k.arg} if call else {}
    name_node = call.args[0] if call and call.args else keywords.get("name")
    name = reading.literal(name_node)
    if not isinstance(name, str):
        name = _SUFFIX.sub("", function.name.lower()).replace("_", "-")
    description = reading.literal(keywords.get("help"), "") or ast.get_docstring(function) or ""
    invoke = reading.literal(keywords.get("invoke_without_command"), False)
    for decorator in function.decorator_list:  # click's order: top to bottom
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        method = ast.unparse(target).rsplit(".", 1)[-1]
        if method not in (*_KNOWN, "command", "group"):
            reading.warnings.append(
                DiscoveryError(
                    f"@{ast.unparse(target)} may add options that cannot be read here (only click's "
                    "own decorators are): check the tool's parameters",
                    path=reading.path,
                    line=decorator.lineno,
                )
            )
        elif isinstance(decorator, ast.Call):
            _click_parameter(decorator, reading)
    return Command(
        function.name, name, first_paragraph(description), function.lineno, reading,
        group=kind == "group", parent=parent, optional_command=invoke is True,
    )  # fmt: skip


def _attach_added(module: ast.Module, commands: dict[str, Command]) -> None:
    """`cli.add_command(hello)` and `cli.add_command(hello, name="hi")`."""
    for node in ast.walk(module):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_command"
            and isinstance(node.func.value, ast.Name)
            and node.args
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in commands
        ):
            command = commands[node.args[0].id]
            command.parent = node.func.value.id
            name = next(
                (k.value for k in node.keywords if k.arg == "name"),
                node.args[1] if len(node.args) > 1 else None,
            )
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                command.name = name.value


def _click_parameter(decorator: ast.Call, reading: Reading) -> None:
    target = decorator.func
    method = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    if method in _SKIPPED or method not in ("option", "argument", "password_option", "confirmation_option"):
        return
    line = decorator.lineno
    what = f"@{ast.unparse(target)}({', '.join(ast.unparse(arg) for arg in decorator.args)})"
    keywords = {k.arg: k.value for k in decorator.keywords if k.arg}
    decls = [reading.literal(arg) for arg in decorator.args]
    if not all(isinstance(decl, str) for decl in decls) or any(k.arg is None for k in decorator.keywords):
        raise DiscoveryError(f"{what}: its names are not literal strings", path=reading.path, line=line)
    if reading.literal(keywords.get("expose_value"), True) is False:
        return
    if method == "password_option":
        decls, keywords = decls or ["--password"], {**keywords, "prompt": ast.Constant(True)}
    if method == "confirmation_option":
        decls, keywords = decls or ["--yes"], {**keywords, "is_flag": ast.Constant(True)}
    names = [decl for decl in decls if not decl.startswith("-")]
    flags = [part for decl in decls if decl.startswith("-") for part in decl.split("/")[:1]]
    secondary = next((decl for decl in decls if "/" in decl), None)
    if method == "argument":
        _click_argument(names[0] if names else "", keywords, reading, line, what)
        return
    long_flags = [flag for flag in flags if flag.startswith("--")]
    option = (long_flags or flags or ["--" + (names[0] if names else "")])[0]
    name = names[0] if names else option.lstrip("-").replace("-", "_").lower()
    default = reading.literal(keywords.get("default"))
    prompt = keywords.get("prompt") is not None and reading.literal(keywords.get("prompt")) is not False
    required = reading.literal(keywords.get("required"), False) is not False or prompt
    fields: dict[str, Any] = {"name": name, "option": option, "required": required}
    if secondary or reading.literal(keywords.get("is_flag"), False) or keywords.get("flag_value") is not None:
        negative = secondary.split("/", 1)[1] if secondary and "/" in secondary else None
        fields.update(type="boolean", option_form="flag", required=False)
        fields["option"] = f"{option}/{negative.strip()}" if negative else option
        fields["default"] = default if isinstance(default, bool) else False
    elif reading.literal(keywords.get("count"), False):
        fields.update(type="integer", option_form="count", min=0, required=False)
        fields["default"] = default if isinstance(default, int) else 0
    else:
        item = click_type(keywords.get("type"), default, reading, fields)
        nargs = reading.literal(keywords.get("nargs"), 1)
        if reading.literal(keywords.get("multiple"), False):
            fields.update(type="array", items=item, option_form="repeat")
            fields["default"] = list(default) if isinstance(default, list | tuple) and default else None
            fields["required"] = required and not prompt
            if prompt:
                reading.cannot_represent(what, "a prompt for many values", line, required=True)
        elif isinstance(nargs, int) and nargs > 1:
            fields.update(type="array", items=item, option_form="list", min=nargs, max=nargs)
            fields["default"] = list(default) if isinstance(default, list | tuple) else None
        else:
            fields.update(type=item, default=default)
    fields["description"] = reading.literal(keywords.get("help"), "") or ""
    add_parameter(reading, line, fields, what)


def _click_argument(name: str, keywords: dict[str, ast.expr], reading: Reading, line: int, what: str) -> None:
    default = reading.literal(keywords.get("default"))
    nargs = reading.literal(keywords.get("nargs"), 1)
    explicit = reading.literal(keywords.get("required"))
    fields: dict[str, Any] = {"name": name.replace("-", "_"), "option": ""}
    item = click_type(keywords.get("type"), default, reading, fields)
    if nargs == -1 or (isinstance(nargs, int) and nargs > 1):
        fields.update(type="array", items=item)
        if nargs > 1:
            fields.update(min=nargs, max=nargs)
        fields["required"] = explicit is True or (nargs > 1 and explicit is None and default is None)
        fields["default"] = list(default) if isinstance(default, list | tuple) and default else None
    else:
        fields.update(type=item, default=default)
        fields["required"] = explicit is not False and (explicit is True or default is None)
    fields["description"] = reading.literal(keywords.get("help"), "") or ""
    add_parameter(reading, line, fields, what)


def click_type(node: ast.expr | None, default: Any, reading: Reading, fields: dict[str, Any]) -> ParamType:
    """The parameter type of a click `type=` (a Choice sets `enum`, a range `min`/`max`)."""
    if node is None:
        inferred = next(
            (t for t in ("boolean", "integer", "number") if value_matches_type(default, t)), "string"
        )
        return "string" if inferred == "boolean" else inferred  # type: ignore[return-value]
    name = node.func if isinstance(node, ast.Call) else node
    hint = name.attr if isinstance(name, ast.Attribute) else getattr(name, "id", "")
    if hint == "Choice" and isinstance(node, ast.Call) and node.args:
        choices = reading.literal(node.args[0])
        if isinstance(choices, list | tuple) and choices and all(isinstance(c, str) for c in choices):
            fields["enum"] = list(choices)
        return "string"
    if hint in ("IntRange", "FloatRange") and isinstance(node, ast.Call):
        keywords = {k.arg: k.value for k in node.keywords}
        for index, key in enumerate(("min", "max")):
            bound = reading.literal(node.args[index] if len(node.args) > index else keywords.get(key))
            if isinstance(bound, int | float) and not isinstance(bound, bool):
                fields[key] = bound
    if hint in ("BOOL", "bool"):
        fields["enum"] = ["true", "false"]
        return "string"
    return _CLICK_TYPES.get(hint, "string")
