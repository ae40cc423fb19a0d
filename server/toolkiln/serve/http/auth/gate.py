"""The OAuth check of `/mcp` and `/rpc`: who the caller is, and what it may do.

The Guard (serve/http/guard.py) hands these paths here once Host and Origin have passed.
A request without a valid access token gets 401 with a `WWW-Authenticate` challenge
naming the Protected Resource Metadata and the scopes to ask for. A valid one's
principal (the SDK's `AuthenticatedUser`, what its session manager binds a session to)
goes into the ASGI scope as `user`, with its scopes as `auth`. A request whose token
lacks `oauth.required_scopes`, or a `tools/call` of a tool whose scopes it lacks, gets
403 `insufficient_scope` naming the scopes needed (the client may then ask for them:
step-up authorization). The token itself goes no further than this check: a tool
never sees it, in its arguments or its environment.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from pydantic_core import from_json
from starlette.authentication import AuthCredentials
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolkiln.model.oauth import OAuthSettings
from toolkiln.serve.http.auth.errors import TokenRefused
from toolkiln.serve.http.auth.metadata import challenge, metadata_paths

logger = logging.getLogger(__name__)

GUARDED_PATHS = frozenset({"/mcp", "/rpc"})
# What the Guard calls to refuse: (scope, status, reason, extra headers).
Refuse = Callable[[Scope, int, str, list[tuple[bytes, bytes]]], Awaitable[None]]


class Verifier(Protocol):
    async def verify_token(self, token: str) -> AccessToken: ...


class OAuthGate:
    def __init__(
        self,
        settings: OAuthSettings,
        verifier: Verifier,
        tool_scopes: Callable[[str], Sequence[str] | None],
        max_body_bytes: int,
    ) -> None:
        self.settings = settings
        self.verifier = verifier
        self.tool_scopes = tool_scopes  # a tool's scopes, from the catalog now served
        self.max_body_bytes = max_body_bytes
        self.open_paths = metadata_paths(settings)
        self.required = list(settings.required_scopes)

    def guards(self, path: str) -> bool:
        return path in GUARDED_PATHS

    async def admit(self, scope: Scope, receive: Receive, send: Send, app: ASGIApp, refuse: Refuse) -> None:
        scheme, _, credentials = _authorization(scope).partition(" ")
        if scheme.lower() != "bearer" or not credentials.strip():
            header = challenge(self.settings, self.required)
            await refuse(scope, 401, "no access token (Authorization: Bearer <token>)", _www(header))
            return
        try:
            token = await self.verifier.verify_token(credentials.strip())
        except TokenRefused as refused:
            header = challenge(self.settings, self.required, "invalid_token", str(refused))
            await refuse(scope, 401, f"access token refused: {refused}", _www(header))
            return
        granted = frozenset(token.scopes)
        missing = [needed for needed in self.required if needed not in granted]
        if not missing and scope["method"] == "POST":
            receive, missing = await self._scopes_of_calls(receive, granted)
        if missing:
            needed = sorted({*self.required, *missing})
            why = f"the token lacks the scope {' '.join(missing)}"
            header = challenge(self.settings, needed, "insufficient_scope", why)
            await refuse(scope, 403, f"{why} ({_who(token)})", _www(header))
            return
        user = AuthenticatedUser(token)
        scope["user"], scope["auth"] = user, AuthCredentials(token.scopes)
        reset = auth_context_var.set(user)
        try:
            await app(scope, receive, send)
        finally:
            auth_context_var.reset(reset)

    async def _scopes_of_calls(self, receive: Receive, granted: frozenset[str]) -> tuple[Receive, list[str]]:
        """Read the body (then hand it on whole): the scopes its `tools/call`s need and the
        token lacks. A body too large or not JSON is left to the routes to refuse."""
        messages: list[Message] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > self.max_body_bytes or not message.get("more_body", False):
                break
        replay = _replaying(messages, receive)
        if size > self.max_body_bytes:
            return replay, []
        try:
            body = from_json(b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request"))
        except ValueError:
            return replay, []
        missing: set[str] = set()
        for request in body if isinstance(body, list) else [body]:
            name = _called_tool(request)
            needed = self.tool_scopes(name) if name is not None else None
            missing.update(s for s in needed or () if s not in granted)
        return replay, sorted(missing)


def _authorization(scope: Scope) -> str:
    for name, value in scope["headers"]:
        if name.lower() == b"authorization":
            return str(value.decode("latin-1"))
    return ""


def _called_tool(request: Any) -> str | None:
    if not isinstance(request, dict) or request.get("method") != "tools/call":
        return None
    params = request.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    return name if isinstance(name, str) else None


def _replaying(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def replay() -> Message:
        return pending.pop(0) if pending else await receive()

    return replay


def _www(value: str) -> list[tuple[bytes, bytes]]:
    return [(b"www-authenticate", value.encode())]


def _who(token: AccessToken) -> str:
    return f"subject {token.subject!r}, client {token.client_id!r}"
