"""The bearer token of `serve --http`: its file in the state folder (state_dir.py), read,
made on first use, and checked. The server and `toolkiln config`/`doctor` share this one
module, which imports nothing of the SDK.

A token file holds one token per line (blank lines and lines starting with `#` are
skipped): the first is the one clients are given, every one is accepted, so a token is
replaced without refusing a client that still holds the old one (docs/operations.md,
Rotating the token). A running server reads the file again when it changes or on
SIGHUP (`Tokens`, serve/http/credentials.py).
"""

from __future__ import annotations

import hmac
import logging
import os
import secrets
from pathlib import Path

from toolkiln.errors import ConfigError

logger = logging.getLogger(__name__)


TOKEN_FILE = "token"  # in the state folder


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
        tokens = parse_tokens(path, token)
        return tokens[0], False
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        return read_or_create_token(path)
    token = secrets.token_urlsafe(32)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    logger.info("created a new token in %s", path)
    return token, True


def parse_tokens(path: Path, text: str) -> tuple[str, ...]:
    """The tokens of a token file's `text`: one a line, `#` comments and blank lines
    skipped; a `ConfigError` naming `path` when there is none."""
    tokens = tuple(
        line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")
    )
    if not tokens:
        raise ConfigError(
            f"{path}: the token file is empty (no token in it); delete it to have a new token made"
        )
    for number, token in enumerate(tokens, start=1):
        if any(character.isspace() for character in token):
            raise ConfigError(f"{path}: token {number} holds a space; put one token on each line")
    return tokens


def read_tokens(path: Path) -> tuple[str, ...]:
    """Every token in `path` (the first is the one clients are given)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the token: {error.strerror}") from None
    return parse_tokens(path, text)


class Tokens:
    """The tokens a server accepts, replaced whole when its token file is read again."""

    def __init__(self, tokens: tuple[str, ...]) -> None:
        if not tokens:
            raise ValueError("no token to accept")
        self.all = tokens

    @property
    def first(self) -> str:
        return self.all[0]

    def accepts(self, presented: str) -> bool:
        """Whether `presented` is one of the tokens; every one compared, in constant time."""
        given = presented.strip().encode()
        matched = [hmac.compare_digest(given, token.encode()) for token in self.all]
        return any(matched)
