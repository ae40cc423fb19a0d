"""The keys that seal a 2026-07-28 `requestState`: shared by replicas, or this process's.

A `requestState` (the answer to a script's question, or to a confirmation) comes back
in a retry that a load balancer may send to any replica. With config/server.json
`state.secret_file` (or `TOOLKILN_STATE_SECRET_FILE`) every replica derives the same
keys from the secret in that file, so any of them opens what another sealed. Without
it each process makes a key of its own when it starts: right for one machine, and a
retry that reaches another replica (or comes after a restart) is refused.
The secret file is read and checked by toolkiln/state_secret.py.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError

from toolkiln.state_secret import SECRET_ENV_VAR, StateSecret

logger = logging.getLogger(__name__)

# What each key is for: its HKDF label. A new purpose gets a new label, never an old one.
REQUEST_STATE = b"toolkiln/v1/request-state"


def request_state_security(secret: StateSecret | None, ttl: float = 600.0) -> RequestStateSecurity:
    """The SDK's `RequestStateSecurity`: under the shared secret's keys, or this process's."""
    if secret is None:
        return RequestStateSecurity.ephemeral(ttl=ttl)
    return RequestStateSecurity(keys=secret.keys(REQUEST_STATE), ttl=ttl)


class SealedRequestState:
    """Server middleware: the SDK's `RequestStateBoundary` (every `requestState` sealed on
    the way out, opened and checked against the tool and arguments on the way back),
    whose refusal also says why a state this server cannot open may come back."""

    def __init__(
        self,
        secret: StateSecret | None,
        audience: str,
        current: Callable[[], StateSecret | None] | None = None,
    ) -> None:
        self.shared = secret is not None
        self._audience = audience
        # Where the secret is read again (ToolService.secret, after a reload): keys follow it.
        self._current = current
        self._secret = secret
        self._boundary = RequestStateBoundary(request_state_security(secret), default_audience=audience)

    def _rekeyed(self) -> RequestStateBoundary:
        secret = self._current() if self._current is not None else self._secret
        if secret is not self._secret and secret is not None and self._secret is not None:
            self._secret = secret
            self._boundary = RequestStateBoundary(
                request_state_security(secret), default_audience=self._audience
            )
        return self._boundary

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        try:
            return await self._rekeyed()(ctx, call_next)
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
