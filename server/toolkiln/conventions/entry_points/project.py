"""The commands a project declares: `[project.scripts]` (PEP 621) and
`[tool.poetry.scripts]` of a `pyproject.toml`, `bin` of a `package.json` (a string,
the package's own name for the command, or an object of names to files).

Read as data (tomllib, json), size-capped; nothing runs. A command whose target cannot
be a module of the project (`pkg.cli:main` whose words are not identifiers) or a file
inside it (`../x`, an absolute path) is refused, with the reason, never followed.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

PYPROJECT = "pyproject.toml"
PACKAGE_JSON = "package.json"
MAX_FILE_BYTES = 256 * 1024
MAX_COMMANDS = 64
IMPORT_ROOTS = ("", "src")  # where a project's modules are: its folder, and a src layout
# `pkg.cli:main` or `pkg.cli:app.run`, maybe with extras (`pkg:main [color]`).
_TARGET = re.compile(
    r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*:\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*(?:\[[^\]]*\])?$"
)
_SCOPED = re.compile(r"^@[^/]+/")


@dataclass(frozen=True)
class Command:
    """One command a project declares: its name, and what runs it (`module:function`
    for Python, a file relative to the project folder for Node)."""

    name: str
    target: str
    # Where it is declared, for messages: `[project.scripts]`, `bin`.
    table: str


@dataclass(frozen=True)
class Refused:
    """A command that cannot be served, and why."""

    name: str
    reason: str


@dataclass(frozen=True)
class Table:
    """What a project file declares: its commands, those it declares wrongly, and the
    project's own description (each command's, when the command says none)."""

    commands: list[Command]
    refused: list[Refused]
    description: str


def module_file(project: Path, module: str) -> Path | None:
    """The file of `module` (`pkg.cli`) in the project folder or its `src/`, every link
    in its path resolved inside the project folder; None when there is none. Asked by
    discovery, and by the runner before each call (a file made a link out since)."""
    from toolkiln.containment import escape_reason

    parts = module.split(".")
    for root in IMPORT_ROOTS:
        base = project / root if root else project
        for path in (base.joinpath(*parts).with_suffix(".py"), base.joinpath(*parts, "__init__.py")):
            if path.is_file() and escape_reason(project, path.relative_to(project).as_posix()) is None:
                return path
    return None


def command_file(project_file: Path, entry_point: str) -> Path | None:
    """The file a declared command runs: its module (`pkg.cli:main` in a pyproject.toml)
    or its bin file (a package.json's), as discovery and the runner find it; None when
    there is none. Build and the runner refuse one in a folder a tool may write."""
    project = project_file.parent
    if project_file.name == PACKAGE_JSON:
        return project / entry_point
    return module_file(project, entry_point.split(":")[0])


def read_table(path: Path, text: str | None = None) -> Table:
    """The commands the project file at `path` declares. `ValueError` when the file
    cannot be read as its format."""
    if text is None:
        text = read_capped(path)
    if path.name == PYPROJECT:
        return _python_commands(text)
    return _node_commands(text)


def read_capped(path: Path) -> str:
    with path.open("rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"is larger than {MAX_FILE_BYTES // 1024} KiB")
    return data.decode("utf-8", errors="replace")


def declares_commands(path: Path, text: str) -> bool:
    """A cheap look: whether the file could declare a command (before parsing it)."""
    if path.name == PYPROJECT:
        return "scripts" in text and ("[project" in text or "[tool.poetry" in text)
    return '"bin"' in text


def _python_commands(text: str) -> Table:
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as error:
        raise ValueError(f"is not valid TOML: {error}") from None
    found: list[Command] = []
    refused: list[Refused] = []
    tables = (
        ("[project.scripts]", _table(data, "project", "scripts")),
        ("[tool.poetry.scripts]", _table(data, "tool", "poetry", "scripts")),
    )
    for table, entries in tables:
        for name, value in entries.items():
            if any(command.name == name for command in found):
                continue  # both tables name it (a project moving to PEP 621): one tool
            target = value.get("reference") or value.get("callable") if isinstance(value, dict) else value
            kind = value.get("type", "console") if isinstance(value, dict) else "console"
            match = _TARGET.match(target.strip()) if isinstance(target, str) else None
            if kind != "console" or match is None:
                refused.append(Refused(str(name), f"{table} {name} = {value!r} names no `module:function`"))
                continue
            found.append(Command(str(name), f"{match.group(1)}:{match.group(2)}", table))
    project = _table(data, "project") or _table(data, "tool", "poetry")
    return Table(found[:MAX_COMMANDS], refused, _text(project.get("description")))


def _table(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None  # type: ignore[assignment]
    return data if isinstance(data, dict) else {}


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _node_commands(text: str) -> Table:
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise ValueError(f"is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        return Table([], [], "")
    description = _text(data.get("description"))
    bin_ = data.get("bin")
    if isinstance(bin_, str):
        package = data.get("name")
        if not isinstance(package, str) or not package:
            return Table(
                [], [Refused("bin", "`bin` is one file, and the package has no `name`")], description
            )
        bin_ = {_SCOPED.sub("", package): bin_}  # npm names it after the package, scope dropped
    if not isinstance(bin_, dict):
        return Table([], [], description)
    found: list[Command] = []
    refused: list[Refused] = []
    for name, target in bin_.items():
        reason = _file_refusal(target)
        if reason:
            refused.append(Refused(str(name), f"bin {name}: {reason}"))
        else:
            found.append(Command(str(name), str(PurePosixPath(target)), "bin"))
    return Table(found[:MAX_COMMANDS], refused, description)


def _file_refusal(target: Any) -> str | None:
    if not isinstance(target, str) or not target.strip():
        return "names no file"
    path = PurePosixPath(target)
    if path.is_absolute() or ".." in path.parts or "\\" in target or "\0" in target:
        return f"{target!r} is not a file inside the project"
    return None
