"""The token file and the replicas' shared secret file of a running server, read again
without a restart: when either file changes (checked every CHECK_SECONDS: its inode,
size and modification time) or on SIGHUP.

Either file may hold several lines: every token is accepted (http_token.py), the first secret
seals and every one opens (state_secret.py). So a rotation adds the new value beside the
old on every replica first, and removes the old one only when no client or replica uses
it (docs/operations.md, Rotations). A file that cannot be read, or holds nothing valid,
is refused with a warning in the log, and what was read before stays in force: a
half-written file never locks everyone out.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from toolkiln.errors import ConfigError
from toolkiln.http_token import Tokens, read_tokens
from toolkiln.state_secret import load_state_secret

if TYPE_CHECKING:
    from toolkiln.serve.sealed_messages import Seals
    from toolkiln.serve.service import ToolService

logger = logging.getLogger(__name__)

CHECK_SECONDS = 1.0
Stamp = tuple[int, int, int] | None


class Credentials:
    """What `serve --http` reads again: its tokens (`tokens`, held by the Guard's
    Admission) and the service's state secret (`ToolService.secret`, and a replica's
    `seals`: replicas/replication.py)."""

    def __init__(
        self, service: ToolService, token_file: Path | None, tokens: Tokens | None, seals: Seals | None = None
    ) -> None:
        self.service = service
        self.seals = seals
        self.token_file = token_file if tokens is not None else None
        self.tokens = tokens
        secret = service.secret
        self.secret_file = secret.path if secret is not None else None
        self._stamps = {path: _stamp(path) for path in self._files()}

    def _files(self) -> list[Path]:
        return [path for path in (self.token_file, self.secret_file) if path is not None]

    def reload(self, why: str) -> None:
        """Read both files again (`why`: for the log)."""
        for path in self._files():
            self._stamps[path] = _stamp(path)
        if self.token_file is not None and self.tokens is not None:
            self._reload_tokens(self.token_file, self.tokens, why)
        if self.secret_file is not None:
            self._reload_secret(self.secret_file, why)

    def reload_changed(self) -> None:
        """Read again the files whose inode, size or time changed since last read."""
        if any(_stamp(path) != stamp for path, stamp in self._stamps.items()):
            self.reload("the file changed")

    async def watch(self) -> None:
        """Check the files every CHECK_SECONDS until cancelled."""
        while True:
            await anyio.sleep(CHECK_SECONDS)
            self.reload_changed()

    def _reload_tokens(self, path: Path, tokens: Tokens, why: str) -> None:
        try:
            found = read_tokens(path)
        except ConfigError as error:
            logger.warning("%s; the %d token(s) read before are still accepted", error, len(tokens.all))
            return
        if found != tokens.all:
            if self.service.audit is not None:  # a token is never written, whichever is in use
                for token in found:
                    self.service.audit.redactor.add_known(token)
            tokens.all = found
            logger.info("%s: %d token(s) accepted from now on (%s)", path, len(found), why)

    def _reload_secret(self, path: Path, why: str) -> None:
        service = self.service
        try:
            secret = load_state_secret(path)
        except ConfigError as error:
            logger.warning("%s; the secrets read before are still used", error)
            return
        if service.secret is not None and secret.secrets == service.secret.secrets:
            return
        service.secret = secret
        if self.seals is not None:
            self.seals.rekey(secret.secrets)
        logger.info("%s: %d secret(s) from now on, the first seals (%s)", path, len(secret.secrets), why)


def _stamp(path: Path) -> Stamp:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_ino, status.st_size, status.st_mtime_ns
