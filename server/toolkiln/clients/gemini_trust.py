"""Gemini CLI's trusted folders: whether a folder is trusted, to tell the user (never to
write trust for them).

With folder trust on (`security.folderTrust.enabled` in ~/.gemini/settings.json),
Gemini CLI connects to no MCP server in a folder the user has not trusted: `gemini mcp
list` shows toolkiln Disabled. The user's choices are in ~/.gemini/trustedFolders.json
(or the file GEMINI_CLI_TRUSTED_FOLDERS_PATH names): a path and TRUST_FOLDER (it and
what is under it), TRUST_PARENT (its parent folder and what is under that) or
DO_NOT_TRUST; the rule nearest the folder decides (https://geminicli.com/docs/cli/trusted-folders).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

TRUST_FILE_VARIABLE = "GEMINI_CLI_TRUSTED_FOLDERS_PATH"


def trust_file() -> Path:
    given = os.environ.get(TRUST_FILE_VARIABLE)
    return Path(given) if given else Path.home() / ".gemini" / "trustedFolders.json"


def folder_trust_enabled() -> bool | None:
    """`security.folderTrust.enabled` of ~/.gemini/settings.json (None: not set there, or
    not plain JSON: the hint then says when it applies)."""
    try:
        settings = json.loads((Path.home() / ".gemini" / "settings.json").read_text(encoding="utf-8"))
        enabled = settings["security"]["folderTrust"]["enabled"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return enabled if isinstance(enabled, bool) else None


def is_trusted(folder: Path) -> bool:
    """Whether trustedFolders.json trusts `folder` (no rule for it: not trusted)."""
    try:
        rules = json.loads(trust_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(rules, dict):
        return False
    folder = folder.resolve()
    nearest: tuple[int, bool] | None = None
    for path, level in rules.items():
        if not isinstance(path, str) or level not in ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST"):
            continue
        root = Path(path).expanduser()
        root = root.parent if level == "TRUST_PARENT" else root
        if folder == root or folder.is_relative_to(root):
            depth = len(root.parts)
            if nearest is None or depth >= nearest[0]:
                nearest = (depth, level != "DO_NOT_TRUST")
    return nearest is not None and nearest[1]


def gemini_trust_hint(folder: Path) -> str | None:
    """What to tell a user whose Gemini CLI will not connect to the server in `folder`,
    or None (trusted, or folder trust turned off)."""
    folder = folder.resolve()
    enabled = folder_trust_enabled()
    if enabled is False or is_trusted(folder):
        return None
    when = "" if enabled else " when its folder trust is on (security.folderTrust.enabled)"
    return (
        f"Gemini CLI connects to MCP servers only in a folder you trust{when}, and {folder} is not "
        f'trusted in {trust_file()}: run `gemini` in {folder} and choose "Trust folder" (or '
        "/permissions there); `gemini mcp list` shows the server Disabled until then"
    )
