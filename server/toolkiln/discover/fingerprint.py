"""Has a script changed since discovery last read it? mtime and size say no cheaply;
a content hash confirms a yes, so a `touch` or a fresh checkout does not re-probe."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

    from toolkiln.model import SourceFingerprint


def fingerprint_file(path: Path, stat: os.stat_result | None = None) -> SourceFingerprint:
    from toolkiln.model import SourceFingerprint

    stat = stat or path.stat()
    return SourceFingerprint(mtime_ns=stat.st_mtime_ns, size=stat.st_size, sha256=hash_file(path))


def hash_file(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def is_unchanged(path: Path, stat: os.stat_result, known: SourceFingerprint | None) -> bool:
    return known is not None and matches(path, stat, known.size, known.mtime_ns, known.sha256)


def matches(path: Path, stat: os.stat_result, size: int, mtime_ns: int, sha256: str) -> bool:
    """Whether the file is the one recorded: its size, and its mtime or else its hash."""
    if stat.st_size != size:
        return False
    return stat.st_mtime_ns == mtime_ns or hash_file(path) == sha256


def same_content(new: BaseModel, old: BaseModel) -> bool:
    """Whether two configs say the same thing. A new mtime with the same bytes (a checkout,
    a `touch`) is not a change worth a write, and neither is a new timestamp."""
    ignore: Any = {"last_modified": True, "source": {"mtime_ns"}}
    return new.model_dump(exclude=ignore) == old.model_dump(exclude=ignore)
