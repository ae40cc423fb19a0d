"""The bearer token of `serve --http`, and the folder where it and the running server's
discovery file live. The server and `toolkiln config`/`doctor` share this one module,
which imports nothing of the SDK."""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path

from toolkiln.errors import ConfigError

logger = logging.getLogger(__name__)


TOKEN_FILE = "token"  # in the state folder
SERVER_FILE = "server.json"  # what the running HTTP server writes there: its URL


def default_state_dir() -> Path:
    """The user's config folder for toolkiln (XDG_CONFIG_HOME, else ~/.config)."""
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "toolkiln"


def read_or_create_token(path: Path) -> tuple[str, bool]:
    """(the token in `path`, whether it was just made): on first use a new random token
    is written with mode 0600, in a folder made with mode 0700."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        try:
            mode = path.stat().st_mode & 0o777
            token = path.read_text(encoding="utf-8").strip()
        except OSError as error:
            raise ConfigError(f"{path}: cannot read the token: {error.strerror}") from None
        if mode & 0o077:
            logger.warning("%s can be read by other users (mode %o); run: chmod 600 %s", path, mode, path)
        if not token:
            raise ConfigError(
                f"{path}: the token file is empty; delete it to have a new token made"
            ) from None
        return token, False
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        return read_or_create_token(path)
    token = secrets.token_urlsafe(32)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    logger.info("created a new token in %s", path)
    return token, True
