"""The keys that seal a 2026-07-28 `requestState`: shared by replicas, or this process's.

A `requestState` (the answer to a script's question, or to a confirmation) comes back
in a retry that a load balancer may send to any replica. With config/server.json
`state.secret_file` (or `TOOLKILN_STATE_SECRET_FILE`) every replica derives the same
keys from the secret in that file, so any of them opens what another sealed. Without
it each process makes a key of its own when it starts: right for one machine, and a
retry that reaches another replica (or comes after a restart) is refused.

The file is private (mode 0600 or stricter: a secret others can read is refused), holds
at least 32 bytes of randomness, and is never the bearer token. One secret per line:
the first seals, every line opens, so a secret is replaced without refusing what was
sealed under the old one (docs/configuration.md, Rotating the secret). Each purpose has
its own key, derived with HKDF-SHA256 under its own label: a key never serves two.
"""

from __future__ import annotations

import hmac
import logging
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError

from toolkiln.errors import ConfigError
from toolkiln.process import hide_from_every_process

logger = logging.getLogger(__name__)

SECRET_ENV_VAR = "TOOLKILN_STATE_SECRET_FILE"
MIN_SECRET_BYTES = 32
# What each key is for: its HKDF label. A new purpose gets a new label, never an old one.
REQUEST_STATE = b"toolkiln/v1/request-state"
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
    return HKDF(algorithm=SHA256(), length=32, salt=_SALT, info=purpose).derive(secret)


def load_state_secret(path: Path) -> StateSecret:
    """The secret in `path`; a `ConfigError` that says what to do when the file is
    missing, readable by others, or too short."""
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


def request_state_security(secret: StateSecret | None, ttl: float = 600.0) -> RequestStateSecurity:
    """The SDK's `RequestStateSecurity`: under the shared secret's keys, or this process's."""
    if secret is None:
        return RequestStateSecurity.ephemeral(ttl=ttl)
    return RequestStateSecurity(keys=secret.keys(REQUEST_STATE), ttl=ttl)


class SealedRequestState:
    """Server middleware: the SDK's `RequestStateBoundary` (every `requestState` sealed on
    the way out, opened and checked against the tool and arguments on the way back),
    whose refusal also says why a state this server cannot open may come back."""

    def __init__(self, secret: StateSecret | None, audience: str) -> None:
        self.shared = secret is not None
        self._boundary = RequestStateBoundary(request_state_security(secret), default_audience=audience)

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        try:
            return await self._boundary(ctx, call_next)
        except MCPError as error:
            if error.error.data != {"reason": "invalid_request_state"}:
                raise
            raise MCPError(
                error.error.code, f"{error.error.message}: {self._why()}", error.error.data
            ) from None

    def _why(self) -> str:
        if self.shared:
            return (
                "it has expired, was altered, or was sealed by a deployment with another "
                "state.secret_file. Call the tool again."
            )
        return (
            "it has expired, was altered, or was sealed by another server process: each process "
            "seals with a key of its own unless config/server.json `state.secret_file` (or "
            f"{SECRET_ENV_VAR}) gives every replica the same secret. Call the tool again."
        )
