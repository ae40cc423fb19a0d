"""Where toolkiln keeps what a running server shares with the commands that find it: the
state folder (the HTTP token, the discovery file `server.json`). Imports nothing of the SDK.
"""

from __future__ import annotations

import os
from pathlib import Path

SERVER_FILE = "server.json"  # what the running HTTP server writes in the state folder: its URL


def default_state_dir() -> Path:
    """The user's config folder for toolkiln (XDG_CONFIG_HOME, else ~/.config)."""
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "toolkiln"
