"""Writing `config/tools.json`: a build that changes nothing but the time leaves the file.

Replicas and `serve --watch` know a tools.json by its digest: two builds of the same
configs a second apart must not make two files (a replica told of the first would
refuse it, the shared file being the second's). The file's mtime still follows, so
doctor's stale-build check sees it built from its inputs.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from toolkiln.files import write_json_atomic
from toolkiln.model import Catalog


def write_catalog(path: Path, catalog: Catalog) -> None:
    data = catalog.model_dump(mode="json")
    if _only_its_time_differs(path, data):
        os.utime(path)
    else:
        write_json_atomic(path, data)


def _only_its_time_differs(path: Path, data: dict[str, Any]) -> bool:
    """Whether the file at `path` holds `data` but for `generated_at` (only a regular file
    is read: a FIFO put there would make the build wait for ever)."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return False
        current = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # none yet, or not JSON: written anew
        return False
    return isinstance(current, dict) and current | {"generated_at": ""} == data | {"generated_at": ""}
