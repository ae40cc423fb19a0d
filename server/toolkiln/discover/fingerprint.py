"""Has a script changed since discovery last read it? mtime and size say no cheaply;
a content hash confirms a yes, so a `touch` or a fresh checkout does not re-probe."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

    from toolkiln.model import SourceFingerprint


def fingerprint_file(
    path: Path, stat: os.stat_result | None = None, companions: dict[str, Path] | None = None
) -> SourceFingerprint:
    """The file as it is, and (by their paths under the tools folder) the companion files
    it was declared from: a change to any of them is a change to the tool."""
    from toolkiln.model import SourceFingerprint

    stat = stat or path.stat()
    return SourceFingerprint(
        mtime_ns=stat.st_mtime_ns,
        size=stat.st_size,
        sha256=hash_file(path),
        companions={name: fingerprint_file(file) for name, file in companions.items()}
        if companions
        else None,
    )


def hash_file(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def is_unchanged(
    path: Path, stat: os.stat_result, known: SourceFingerprint | None, tools_dir: Path | None = None
) -> bool:
    if known is None or not matches(path, stat, known.size, known.mtime_ns, known.sha256):
        return False
    companions = {name: c.model_dump() for name, c in (known.companions or {}).items()}
    return not companions or (tools_dir is not None and companions_match(tools_dir, companions))


def companions_match(tools_dir: Path, companions: Any) -> bool:
    """Whether each companion file (`{path: {size, mtime_ns, sha256}}`) is as recorded."""
    for name, known in companions.items():
        file = tools_dir / name
        try:
            if not matches(file, os.stat(file), known["size"], known["mtime_ns"], known["sha256"]):
                return False
        except OSError:
            return False
    return True


def matches(path: Path, stat: os.stat_result, size: int, mtime_ns: int, sha256: str) -> bool:
    """Whether the file is the one recorded: its size, and its mtime or else its hash."""
    if stat.st_size != size:
        return False
    return stat.st_mtime_ns == mtime_ns or hash_file(path) == sha256


def unchanged_config(
    config_file: Path,
    file: Path,
    stat: os.stat_result,
    relative: str,
    path_key: tuple[str, str],
    tools_dir: Path | None = None,
) -> dict[str, Any] | None:
    """The cheap first look, without the models: `config_file` read as plain JSON, when it
    records `file` (its relative path under `path_key`, its size, and its mtime or else
    its hash: a checkout or a `touch` gives the same bytes a new mtime) and its companions
    as they are. None for anything
    else (no config, a change, a config that is not what it should be), which goes the
    long way, through the models."""
    try:
        if not config_file.is_file():  # missing, or a FIFO that a read would wait on forever
            return None
        data = json.loads(config_file.read_bytes())
        block, key = path_key
        source = data["source"]
        if (
            data.get("format_version", 1) == 1  # as the model reads it
            and data[block][key] == relative
            and matches(file, stat, source["size"], source["mtime_ns"], source["sha256"])
            and (
                not source.get("companions")
                or (tools_dir and companions_match(tools_dir, source["companions"]))
            )
        ):
            return dict(data)
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        pass
    return None


def same_content(new: BaseModel, old: BaseModel) -> bool:
    """Whether two configs say the same thing. A new mtime with the same bytes (a checkout,
    a `touch`) is not a change worth a write, and neither is a new timestamp."""
    ignore: Any = {"last_modified": True, "source": {"mtime_ns"}}
    return new.model_dump(exclude=ignore) == old.model_dump(exclude=ignore)
