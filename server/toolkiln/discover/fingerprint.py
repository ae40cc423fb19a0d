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
    if known is None or stat.st_size != known.size:
        return False
    if stat.st_mtime_ns == known.mtime_ns:
        return True
    return hash_file(path) == known.sha256


def same_content(new: BaseModel, old: BaseModel) -> bool:
    """Whether two configs say the same thing. A new mtime with the same bytes (a checkout,
    a `touch`) is not a change worth a write, and neither is a new timestamp."""
    ignore: Any = {"last_modified": True, "source": {"mtime_ns"}}
    return new.model_dump(exclude=ignore) == old.model_dump(exclude=ignore)
