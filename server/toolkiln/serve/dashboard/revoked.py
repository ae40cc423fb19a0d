"""Dashboard sessions ended at logout, so that a copy of the cookie stops working too.

Session cookies are checked without server-side state (sessions.py), so logging out
cannot just forget a session: the cookie's nonce goes on a list, in a file beside the
token file (`revoked-sessions.json`, mode 0600), until the cookie would have expired
anyway. Replicas that share the token file share its folder, and so the list: each
reads the file again when it changes (one `stat` per request), and a logout adds to it
under a lock (`flock`), so that two replicas' logouts both count. The list holds only
sessions that were real (only a logged-in user can log out), and each entry leaves with
the next write after its expiry: it cannot grow without bound.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import time
from pathlib import Path

from toolkiln.files import write_json_atomic

logger = logging.getLogger(__name__)

REVOKED_FILE = "revoked-sessions.json"
FORMAT = 1


class Revocations:
    def __init__(self, path: Path | None) -> None:
        self.path = path  # None: nothing to revoke (no token, no login)
        self._seen: tuple[int, int, int] | None = None  # (inode, mtime_ns, size) read last
        self._revoked: dict[str, float] = {}

    def revoke(self, nonce: str, expires: float) -> None:
        """Put a session's nonce on the list until `expires` (a Unix time)."""
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(self.path.with_name(self.path.name + ".lock"), "a") as lock:
            os.chmod(lock.name, 0o600)
            fcntl.flock(lock, fcntl.LOCK_EX)
            now = time.time()
            revoked = {key: end for key, end in self._read().items() if end > now}
            revoked[_key(nonce)] = expires
            write_json_atomic(self.path, {"format": FORMAT, "revoked": revoked}, mode=0o600)
        self._seen = None  # read it again next time

    def is_revoked(self, nonce: str) -> bool:
        if self.path is None:
            return False
        try:
            status = self.path.stat()
        except FileNotFoundError:
            return False
        seen = (status.st_ino, status.st_mtime_ns, status.st_size)
        if seen != self._seen:
            self._revoked, self._seen = self._read(), seen
        return _key(nonce) in self._revoked

    def _read(self) -> dict[str, float]:
        assert self.path is not None
        try:
            revoked = json.loads(self.path.read_text(encoding="utf-8"))["revoked"]
            return {str(key): float(end) for key, end in revoked.items()}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            logger.warning(
                "%s: cannot read the ended sessions (%s); delete the file to start afresh", self.path, error
            )
            return {}


def _key(nonce: str) -> str:
    """What the list holds: a hash, not the nonce (a part of a live cookie)."""
    return hashlib.sha256(nonce.encode()).hexdigest()[:32]
