"""The sidecar dialect: a JSON file beside a program declares it as a tool. The
program may be anything (a script in any language, a compiled binary): it is never run
to be understood, only its sidecar is read.

Sidecar names, looked for in this order beside `NAME.EXT` (`STEM` is `NAME` without `.EXT`):

    NAME.EXT.meta.json, STEM.meta.json    mcp-bash-framework (`tools/hello/tool.meta.json`)
    NAME.EXT.tool.json, STEM.tool.json    toolkiln's own spelling
    NAME.EXT.json, STEM.json              only when the JSON reads as a tool declaration

    {"name": "resize", "title": "Resize", "description": "Resize an image",
     "inputSchema": {"type": "object", "properties": {...}, "required": [...]},
     "argv": {"width": "--width", "input": ""}}

`inputSchema` (or `input_schema`, mcp-bash's legacy `arguments`, or `parameters` as a JSON
Schema or as a list of parameters) is served as it is. `argv` says which arguments also
go on the command line (an option string, or "" for a positional, in that order); all
of them reach the program as JSON on stdin, as env vars, and in `MCP_TOOL_ARGS_JSON`.

This module finds a program's sidecar and reads it safely (size, UTF-8, JSON object);
what the parsed sidecar declares is `sidecar_declaration`'s.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkiln.containment import escape_reason
from toolkiln.conventions.base import Candidate, Declaration
from toolkiln.conventions.naming import ENTRY_POINT, tool_name_for
from toolkiln.conventions.sidecar.declaration import SCHEMA_KEYS, declaration_of
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.conventions.base import Probe

CLAIM_IS_CERTAIN = True  # the sidecar is read; the program is never run

# Data files are never programs, even with a JSON beside them.
_NOT_PROGRAMS = {".json", ".md", ".txt", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".lock", ".pyc", ".csv"}
_SIDECAR_SUFFIXES = (".meta.json", ".tool.json")
# Keys that make a plain `NAME.json` a declaration, not data that happens to share a name.
_DECLARING_KEYS = set(SCHEMA_KEYS)
# mcp-bash names its entry point `tool.sh`; such a tool is named after its folder.
_ENTRY_STEMS = {"tool", "run", "main"}
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_-]+")
MAX_SIDECAR_BYTES = 1024 * 1024


def claims(candidate: Candidate) -> bool:
    """A program with a sidecar beside it; or a sidecar with no program, to say so."""
    if _is_sidecar_name(candidate.path.name):
        return _orphan_declaration(candidate.path)
    return candidate.path.suffix.lower() not in _NOT_PROGRAMS and find_sidecar(candidate.path) is not None


def tool_name(candidate: Candidate) -> str | None:
    """The sidecar's `name` made client-safe; else `tools/hello/tool.sh` is `hello`."""
    if _is_sidecar_name(candidate.path.name):
        return None  # an orphan sidecar: named after its own path, never after another tool
    sidecar = find_sidecar(candidate.path)
    data = _read_json_quietly(sidecar) if sidecar else None
    name = data.get("name") if isinstance(data, dict) else None
    if isinstance(name, str) and name.strip():
        return _UNSAFE_NAME.sub("_", name.strip())[:64]
    folder, _, file_name = candidate.relative_path.rpartition("/")
    if folder and file_name.partition(".")[0] in _ENTRY_STEMS:
        return tool_name_for(f"{folder}/{ENTRY_POINT}")  # named after its folder, as a run.sh is
    return None


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    if _is_sidecar_name(candidate.path.name):
        raise DiscoveryError(
            "declares a tool, but there is no program beside it (a sidecar named X.meta.json "
            "or X.tool.json describes the file X, or X.sh, X.py, ... in the same folder)",
            path=candidate.relative_path,
        )
    sidecar = find_sidecar(candidate.path)
    if sidecar is None:  # gone since the scan
        return []
    relative = _relative(candidate, sidecar)
    tools_dir = Path(str(candidate.path)[: -len(candidate.relative_path)] or ".")
    if reason := escape_reason(tools_dir, relative):
        raise DiscoveryError(f"sidecar refused: {reason}", path=relative)
    text = _read_text(sidecar, relative)
    data = _parse(text, relative)
    _check_runnable(candidate)
    return [dataclasses.replace(declaration_of(data, text, relative), companions=(relative,))]


def find_sidecar(program: Path) -> Path | None:
    """The sidecar that declares `program`, or None."""
    name = program.name
    stem = name.rpartition(".")[0] if "." in name.lstrip(".") else ""
    bases = [name, stem] if stem else [name]
    for suffix in _SIDECAR_SUFFIXES:
        for base in bases:
            path = program.with_name(base + suffix)
            if path.is_file():
                return path
    for base in bases:
        path = program.with_name(base + ".json")
        if path != program and path.is_file():
            data = _read_json_quietly(path)
            if isinstance(data, dict) and _DECLARING_KEYS & set(data):
                return path
    return None


def _is_sidecar_name(name: str) -> bool:
    return name.endswith(_SIDECAR_SUFFIXES)


def _orphan_declaration(path: Path) -> bool:
    """A `X.meta.json` that reads as a tool declaration, beside no program X."""
    base = path.name.removesuffix(".meta.json").removesuffix(".tool.json")
    try:
        siblings = os.listdir(path.parent)
    except OSError:
        return False
    for sibling in siblings:
        named_so = sibling == base or (sibling.startswith(base + ".") and not _is_sidecar_name(sibling))
        if named_so and not sibling.endswith(".json"):
            return False
    data = _read_json_quietly(path)
    return isinstance(data, dict) and bool(_DECLARING_KEYS & set(data))


def _read_json_quietly(path: Path) -> Any:
    try:
        if path.stat().st_size > MAX_SIDECAR_BYTES:
            return None
        return json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None


def _relative(candidate: Candidate, sidecar: Path) -> str:
    folder = candidate.relative_path.rpartition("/")[0]
    return f"{folder}/{sidecar.name}" if folder else sidecar.name


def _read_text(sidecar: Path, path: str) -> str:
    try:
        if sidecar.stat().st_size > MAX_SIDECAR_BYTES:
            raise DiscoveryError(f"sidecar is larger than {MAX_SIDECAR_BYTES} bytes", path=path)
        return sidecar.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise DiscoveryError(f"sidecar is not UTF-8 text ({error.reason})", path=path) from None
    except OSError as error:
        raise DiscoveryError(f"sidecar cannot be read ({error.strerror})", path=path) from None


def _parse(text: str, path: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise DiscoveryError(
            f"sidecar is not valid JSON: {error.msg} (column {error.colno})", path=path, line=error.lineno
        ) from None
    except RecursionError:
        raise DiscoveryError("sidecar is nested too deeply", path=path) from None
    if not isinstance(data, dict):
        raise DiscoveryError(
            'a sidecar must be a JSON object: {"description": ..., "inputSchema": {...}}', path=path, line=1
        )
    return data


def _check_runnable(candidate: Candidate) -> None:
    """A program that cannot start is reported now, not at its first call."""
    from toolkiln.interpreters import interpreter_names

    if candidate.executable or interpreter_names(candidate.path):
        return
    raise DiscoveryError(
        f"has a sidecar but is not executable, and toolkiln knows no interpreter for it: "
        f"chmod +x {candidate.relative_path}",
        path=candidate.relative_path,
    )
