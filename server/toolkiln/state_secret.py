"""The replicas' shared secret (`state.secret_file`, or `TOOLKILN_STATE_SECRET_FILE`):
read, checked and turned into one key per purpose. No SDK here: `toolkiln build` and
`toolkiln tasks` seal what they send to replicas with it (serve/sealed_messages.py), and
serve/calls/request_state.py seals `requestState` with it.

The file is private (mode 0600 or stricter: a secret others can read is refused), holds
at least 32 bytes of randomness, and is never the bearer token. One secret per line:
the first seals, every line opens, so a secret is replaced without refusing what was
sealed under the old one (docs/configuration.md, Rotating the secret). Each purpose has
its own key, derived with HKDF-SHA256 under its own label: a key never serves two.
"""

from __future__ import annotations

import hmac
import stat
from dataclasses import dataclass
from pathlib import Path

from toolkiln.errors import ConfigError

SECRET_ENV_VAR = "TOOLKILN_STATE_SECRET_FILE"
MIN_SECRET_BYTES = 32
_SALT = b"toolkiln shared state secret"
_MAKE_ONE = "make one with: (umask 077; python3 -c 'import secrets; print(secrets.token_hex(32))' > {path})"


@dataclass(frozen=True)
class StateSecret:
    """The secrets of a `state.secret_file`: `secrets[0]` seals, all of them open."""

    path: Path
    secrets: tuple[bytes, ...]

    def keys(self, purpose: bytes) -> list[bytes]:
        """The keys for `purpose`, one per secret, the sealing one first."""
        return [derive_key(secret, purpose) for secret in self.secrets]

    def holds(self, text: str) -> bool:
        """Whether one of the secrets is `text` (the bearer token must not be one)."""
        return any(hmac.compare_digest(secret, text.strip().encode()) for secret in self.secrets)


def derive_key(secret: bytes, purpose: bytes) -> bytes:
    """A 32-byte key for `purpose` from the operator's secret (HKDF-SHA256, RFC 5869)."""
    from cryptography.hazmat.primitives.hashes import SHA256  # only where a secret is used
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=SHA256(), length=32, salt=_SALT, info=purpose).derive(secret)


def load_state_secret(path: Path) -> StateSecret:
    """The secret in `path`; a `ConfigError` that says what to do when the file is
    missing, readable by others, or too short."""
    from toolkiln.process import hide_from_every_process  # anyio: not for the fast commands

    hide_from_every_process(path)  # no script toolkiln runs ever sees it
    try:
        status = path.stat()
        text = path.read_bytes()
    except OSError as error:
        hint = f"; {_MAKE_ONE.format(path=path)}" if isinstance(error, FileNotFoundError) else ""
        raise ConfigError(f"{path} (state.secret_file): cannot read it: {error.strerror}{hint}") from None
    if not stat.S_ISREG(status.st_mode):
        raise ConfigError(f"{path} (state.secret_file): not a regular file")
    mode = stat.S_IMODE(status.st_mode)
    if mode & 0o077:
        raise ConfigError(
            f"{path} (state.secret_file): other users can read this secret (mode {mode:04o}), and "
            f"whoever holds it can forge this deployment's requestState; run: chmod 600 {path}"
        )
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise ConfigError(f"{path} (state.secret_file): the file is empty; {_MAKE_ONE.format(path=path)}")
    for number, line in enumerate(lines, start=1):
        if len(line) < MIN_SECRET_BYTES:
            raise ConfigError(
                f"{path}:{number} (state.secret_file): a secret of {len(line)} bytes; it needs at least "
                f"{MIN_SECRET_BYTES} bytes of randomness: {_MAKE_ONE.format(path=path)}"
            )
    if len(set(lines)) != len(lines):
        raise ConfigError(f"{path} (state.secret_file): the same secret is on two lines")
    return StateSecret(path, tuple(lines))
