"""Which packages of a tool's `requirements.txt` the server's Python lacks.

Python-module tools run in the server's own interpreter (seeds/004), so their
packages must be installed there; `toolkiln list` names the missing ones.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

# The distribution name at the start of a requirement line (pip's format).
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def missing_requirements(path: Path) -> list[str]:
    """The requirement names in `path` that are not installed (versions are not compared)."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    missing = []
    for line in lines:
        line = line.split("#", 1)[0].strip()
        match = _NAME.match(line)
        if not match or line.startswith("-"):  # an option such as -r or --index-url
            continue
        try:
            metadata.distribution(match.group(1))
        except metadata.PackageNotFoundError:
            missing.append(match.group(1))
    return missing
