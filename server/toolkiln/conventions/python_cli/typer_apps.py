"""typer apps added to others: `app.add_typer(users_app, name="users")` in the same file,
or `app.add_typer(users.app, name="users")` with `import users` for `users.py` beside the
script (siblings.py): the added app is the group `users` of `app`, its commands
`users create`, ... (one tool per leaf, python_cli/commands.py)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

from toolkiln.conventions.python_cli.commands import Command
from toolkiln.conventions.python_cli.read import Reading
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.conventions.python_cli.siblings import Siblings

# A module's typer apps, its entries, the commands it runs and its reading (read_typer's).
ReadApps = Callable[
    [ast.Module, str],
    "tuple[dict[str, ast.Assign], dict[str, Command], list[tuple[str, int]], Reading] | None",
]


def sibling_apps(module: ast.Module, siblings: Siblings | None, read_apps: ReadApps) -> dict[str, Command]:
    """The apps of the modules the script imports by name from beside it (`import users`),
    as `users.app` -> that app's group (its commands read from `users.py`)."""
    found: dict[str, Command] = {}
    if siblings is None:
        return found
    for node in module.body:
        if not isinstance(node, ast.Import):
            continue
        for alias in node.names:
            if "." in alias.name or not _adds_from(module, alias.asname or alias.name):
                continue
            loaded = siblings.module(alias.name)
            if loaded is None:
                continue
            other, other_path = loaded
            read = read_apps(other, other_path)
            if read is None:
                continue
            for variable, entry in read[1].items():
                if variable in read[0]:
                    group = entry if entry.group else Command(
                        entry.function, entry.name, entry.description, entry.line, Reading(other_path, {}),
                        group=True, children=[entry],
                    )  # fmt: skip
                    found[f"{alias.asname or alias.name}.{variable}"] = group
    return found


def _adds_from(module: ast.Module, name: str) -> bool:
    """Whether the module calls `add_typer(name.<app>, ...)`: only such imports are read."""
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "add_typer"
        and node.args
        and ast.unparse(node.args[0]).startswith(f"{name}.")
        for node in ast.walk(module)
    )


def nest_added_apps(
    module: ast.Module,
    apps: dict[str, ast.Assign],
    entries: dict[str, Command],
    reading: Reading,
    imported: dict[str, Command],
) -> None:
    """`app.add_typer(users_app, name="users")`: the app `users_app` is the group `users`
    of `app` (its name from the call, else from its own `typer.Typer(name=...)`); its
    commands are `users create`, ... An app added under no name (typer merges its
    commands then) is left out with a warning."""
    for node in module.body:
        call = node.value if isinstance(node, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
            continue
        if call.func.attr != "add_typer" or not call.args:
            continue
        parent, child = ast.unparse(call.func.value), ast.unparse(call.args[0])
        if parent in entries and child in imported:
            keywords = {k.arg: k.value for k in call.keywords if k.arg}
            name = reading.literal(keywords.get("name"))
            if isinstance(name, str) and name:
                group = imported[child]
                group.name = name
                group.description = reading.literal(keywords.get("help"), "") or group.description
                entries[parent].children.append(group)
                continue
        if parent in entries and child not in entries:
            reading.warnings.append(
                DiscoveryError(
                    f"the commands of {child} are left out: it is an app of another module, and "
                    "toolkiln reads one file (serve that module's own file, or add its commands here)",
                    path=reading.path, line=call.lineno,
                )
            )  # fmt: skip
        if parent not in entries or child not in entries or parent == child:
            continue
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        own = {k.arg: k.value for k in apps[child].value.keywords if k.arg}  # type: ignore[attr-defined]
        name = reading.literal(keywords.get("name")) or reading.literal(own.get("name"))
        group = entries[child]
        if not isinstance(name, str) or not name or not group.group:
            reading.warnings.append(
                DiscoveryError(
                    f"the commands of {child} are left out: it is added with no name toolkiln can read",
                    path=reading.path, line=call.lineno,
                )
            )  # fmt: skip
            continue
        help_text = reading.literal(keywords.get("help"), "")
        group.name, group.description = name, help_text or group.description
        entries[parent].children.append(group)
