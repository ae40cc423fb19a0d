"""The folders a tool may write, and whether a file lies in one (docs/security.md, "Where
tools come from").

A tool is published only from a file a trusted party put there, so no folder a tool may
write is ever a source of tools: discovery does not read scripts under one, build refuses a
config whose script lies in one, and the runner refuses to run such a script. The folders
are every tool's workspace (`workspace_config.allowed_paths`, by default
`{TOOL_DIR}/workspace`), its `confinement.writable` folders (its own, else those of
`config/server.json`), and `run_command`'s `confinement.writable` folders. Read from the
per-tool configs (discovery and build: every config, enabled or not, since a disabled
tool is one switch from running) or from the compiled catalog (the runner).

"Lies in" is decided twice, and either is enough: on the paths as written (`..` folded)
and on the paths with every symlink resolved, so neither a symlinked script nor a
symlinked folder hides the relation. Shared by discovery, build and the runner, so it
imports none of them, and reads per-tool configs as plain JSON (a discovery that finds
nothing changed never imports pydantic).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolkiln.model import Catalog

TOOL_DIR = "{TOOL_DIR}"
DEFAULT_WORKSPACE = f"{TOOL_DIR}/workspace"
WORKSPACE_FIELD = "script_config.workspace_config.allowed_paths"
WRITABLE_FIELD = "script_config.confinement.writable"
SERVER_WRITABLE_FIELD = "confinement.writable"
COMMAND_WRITABLE_FIELD = "run_command.confinement.writable"
RUN_COMMAND_WRITER = "run_command"


@dataclass(frozen=True)
class WritableFolder:
    """A folder someone may write: `writer` ("tool 'notes'", "run_command") says who, and
    `source` and `field` where that is said (a config file and the field in it)."""

    path: str  # absolute, `..` folded, symlinks as they are
    writer: str
    source: str
    field: str

    def describe(self) -> str:
        """`<folder>, which tool 'x' may write (<file>: <field>)`."""
        return f"{self.path}, which {self.writer} may write ({self.source}: {self.field})"


class WritableFolders:
    """A set of writable folders, asked whether a path lies in one. A lookup walks the
    path's own parents (a few dict lookups), so it costs the same with 1,000 tools."""

    def __init__(self, folders: Iterable[WritableFolder]) -> None:
        self.folders = list(folders)
        self._index: dict[str, WritableFolder] = {}
        parents: dict[str, str] = {}  # resolved once for the many workspaces of one folder
        for folder in self.folders:
            if folder.path in self._index:  # tools at the top of a folder share its workspace
                continue
            self._index[folder.path] = folder
            if "\0" not in folder.path:  # the model refuses it; realpath would raise
                self._index.setdefault(_resolved(folder.path, parents), folder)

    def __bool__(self) -> bool:
        return bool(self.folders)

    def writer_of(self, path: Path, *, real: Path | None = None) -> WritableFolder | None:
        """The folder that holds `path` (absolute), or is it, with `path` as written
        (`..` folded) or with its symlinks resolved (`real`, when the caller has it); or None."""
        lexical = os.path.abspath(path)
        if "\0" in lexical:  # names no file (build and the runner refuse it as such)
            return None
        found = self._lookup(lexical)
        if found is None:
            resolved = str(real) if real is not None else os.path.realpath(lexical)
            found = self._lookup(resolved) if resolved != lexical else None
        return found

    def holder_of(self, path: str) -> WritableFolder | None:
        """The folder that holds `path` (absolute, `..` folded) strictly, not `path` itself:
        with the folders as written or resolved, and `path` as written or resolved."""
        if "\0" in path:
            return None
        found = self._holder(path)  # as written first: what is written cannot be swapped
        return found if found is not None else self._holder(os.path.realpath(path))

    def _holder(self, spelled: str) -> WritableFolder | None:
        parent = os.path.dirname(spelled)
        return self._lookup(parent) if parent != spelled else None

    def _lookup(self, path: str) -> WritableFolder | None:
        while True:
            found = self._index.get(path)
            if found is not None:
                return found
            parent = os.path.dirname(path)
            if parent == path:
                return None
            path = parent


def _resolved(path: str, parents: dict[str, str]) -> str:
    """`os.path.realpath(path)` (absolute, `..` folded), its parent resolved once for all
    the paths in it (`parents`): a last part that is no symlink (one `lstat`) is the same
    name in the resolved parent, where realpath would `lstat` every part again."""
    parent, name = os.path.split(path)
    if not name or name in (".", "..") or os.path.islink(path):
        return os.path.realpath(path)
    real = parents.get(parent)
    if real is None:
        real = parents[parent] = os.path.realpath(parent)
    return os.path.join(real, name)


def expand_folder(given: str, base: str) -> str:
    """A workspace or `writable` folder as absolute: `{TOOL_DIR}` is `base` (the tool's
    folder, absolute), and a relative one is taken from `base` (as the runner takes it).
    Strings, not `Path`s: discovery does this for every tool of every run."""
    return os.path.abspath(os.path.join(base, given.replace(TOOL_DIR, base)))


def config_writable_folders(config_dir: Path, tools_dir: Path) -> list[WritableFolder]:
    """Every folder a tool or `run_command` may write, from the per-tool configs (enabled
    or not) and `config/server.json`. A file that cannot be read is skipped: build
    reports it."""
    return read_config_fences(config_dir, tools_dir)[0]


def read_config_fences(config_dir: Path, tools_dir: Path) -> tuple[list[WritableFolder], frozenset[str]]:
    """`config_writable_folders`, and the scripts (relative to the tools folder) that have
    a config: a script without one gets the default workspace when discovery writes it."""
    server = _read_json(config_dir / "server.json")
    server_writable = _strings(_get(server, "confinement", "writable")) or []
    folders: list[WritableFolder] = []
    scripts: set[str] = set()
    tool_configs = config_dir / "tools"
    tools = os.path.abspath(tools_dir)
    names = sorted(os.listdir(tool_configs)) if tool_configs.is_dir() else []
    for path in (tool_configs / name for name in names if name.endswith(".json")):
        config = _read_json(path)
        script = _get(config, "script_config")
        if not isinstance(script, dict) or not isinstance(script.get("script_path"), str):
            continue
        scripts.add(script["script_path"])
        tool_dir = os.path.dirname(os.path.abspath(os.path.join(tools, script["script_path"])))
        writer = f"tool {script.get('name', path.stem)!r}"
        workspace = _strings(_get(script, "workspace_config", "allowed_paths"))
        own = _strings(_get(script, "confinement", "writable"))
        for given in workspace if workspace is not None else [DEFAULT_WORKSPACE]:
            folders.append(WritableFolder(expand_folder(given, tool_dir), writer, str(path), WORKSPACE_FIELD))
        for given in own if own is not None else server_writable:
            field = WRITABLE_FIELD if own is not None else SERVER_WRITABLE_FIELD
            source = str(path) if own is not None else str(config_dir / "server.json")
            folders.append(WritableFolder(expand_folder(given, tool_dir), writer, source, field))
    if _get(server, "run_command", "enabled") is True:
        command = _strings(_get(server, "run_command", "confinement", "writable"))
        field = COMMAND_WRITABLE_FIELD if command is not None else SERVER_WRITABLE_FIELD
        source, base = str(config_dir / "server.json"), os.path.abspath(config_dir)
        folders += [
            WritableFolder(expand_folder(given, base), RUN_COMMAND_WRITER, source, field)
            for given in (command if command is not None else server_writable)
        ]
    return folders, frozenset(scripts)


def catalog_writable_folders(catalog: Catalog, catalog_file: Path, tools_dir: Path) -> list[WritableFolder]:
    """Every folder a tool or `run_command` may write, as the compiled catalog says: the
    folders build listed (`writable_folders`, which has the disabled tools' too) and those of
    each tool it serves (so a catalog of an older toolkiln, or one edited since, is
    checked all the same)."""
    base = os.path.abspath(catalog_file.parent)
    tools = os.path.abspath(tools_dir)
    folders: list[WritableFolder] = []
    for tool in catalog.tools:
        if not tool.script_path:
            continue
        tool_dir = os.path.dirname(os.path.abspath(os.path.join(tools, tool.script_path)))
        source = f"{catalog_file} (tool {tool.name!r})"
        writer = f"tool {tool.name!r}"
        folders += [
            WritableFolder(expand_folder(given, tool_dir), writer, source, "workspace.allowed_paths")
            for given in tool.workspace.allowed_paths
        ]
        folders += [
            WritableFolder(expand_folder(given, tool_dir), writer, source, "confinement.writable")
            for given in tool.confinement.writable or []
        ]
    command = catalog.run_command
    if command is not None:
        source = f"{catalog_file} (run_command)"
        folders += [
            WritableFolder(expand_folder(given, base), RUN_COMMAND_WRITER, source, "confinement.writable")
            for given in command.confinement.writable or []
        ]
    # Last, so that a folder a served tool writes is named by that tool.
    folders += [
        WritableFolder(expand_folder(given, base), "a tool", str(catalog_file), "writable_folders")
        for given in catalog.writable_folders
    ]
    return folders


def _read_json(path: Path) -> Any:
    """A config as plain JSON, or None for anything else (build names what is wrong): a
    FIFO or a device is never read (it could block), nor a nesting past Python's stack."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        with os.fdopen(descriptor, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                return None
            return json.load(file)
    except (OSError, ValueError, RecursionError):
        return None


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _strings(value: Any) -> list[str] | None:
    """A list of strings, or None (absent, or not a list of strings: the model refuses it)."""
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    return None
