"""Client-safe tool names derived from a script's path under the tools folder.

MCP clients reject many names (Claude accepts `^[a-zA-Z0-9_-]{1,64}$`; slashes and
dots break several clients), so folders are joined with `__`, other characters
become `_`, and a name longer than 64 characters keeps a short hash for uniqueness.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import PurePosixPath

# A folder whose entry point is `run.sh` is one tool, named after the folder (seeds/003).
ENTRY_POINT = "run.sh"
MAX_NAME_LENGTH = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def tool_name_for(relative_path: str) -> str:
    """`utils/calc.sh` -> `utils__calc`; `pwod/run.sh` -> `pwod`.

    Plain string work (not PurePosixPath): discovery names every file it sees."""
    *folders, file_name = relative_path.split("/")
    if file_name == ENTRY_POINT and folders:
        return _client_safe(folders, relative_path)
    stem, dot, suffix = file_name.rpartition(".")
    # PurePosixPath's stem: a leading dot or a trailing one is no suffix.
    return _client_safe([*folders, stem if dot and stem and suffix else file_name], relative_path)


def item_name_for(relative_path: str, *, keep_suffix: bool) -> str:
    """A prompt's or resource's name: `review/code.md` -> `review__code` (or `review__code_md`)."""
    path = PurePosixPath(relative_path)
    parts = [*path.parent.parts, path.name if keep_suffix else path.stem]
    return _client_safe([_PLACEHOLDER.sub(r"\1", part) for part in parts], relative_path)


def _client_safe(parts: list[str], relative_path: str) -> str:
    name = "__".join(_UNSAFE.sub("_", part) for part in parts)
    if len(name) > MAX_NAME_LENGTH:
        digest = hashlib.sha256(relative_path.encode()).hexdigest()[:8]
        name = f"{name[: MAX_NAME_LENGTH - 9]}_{digest}"
    return name
