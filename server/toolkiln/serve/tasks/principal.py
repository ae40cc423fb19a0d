"""Who a task belongs to: only the same principal may get, answer or cancel it.

- stdio: the local user who runs the server (the client that spawned it; a restarted
  server of the same state folder is the same principal, so a task survives it).
- HTTP with a bearer token: the token (a hash of it). Every client given that token is
  one principal: they can reach each other's tasks if they learn a task id, which is
  192 random bits and is never listed (there is no `tasks/list`).
- HTTP with OAuth (config/server.json `oauth`): the token's issuer, subject and
  client (the SDK's `principal_components`, what it binds a session to), not the token:
  a refreshed token is the same principal, another user or another client is not. It
  is kept readable (`oauth:{"client":...,"issuer":...,"subject":...}`): `toolkiln tasks`
  says whose a task is.
- HTTP with --no-auth (loopback only): every local client is one principal.

A session id is not part of it on purpose: a task must survive a reconnect, and
2026-07-28 clients have no session at all.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import principal_components
from mcp.server.context import ServerRequestContext


def principal_of(ctx: ServerRequestContext[Any] | None) -> str:
    if ctx is None or ctx.request is None:
        return "stdio"
    user = ctx.request.scope.get("user")
    if isinstance(user, AuthenticatedUser):  # set by the OAuth check (serve/http/auth/gate.py)
        client, issuer, subject = principal_components(user.access_token)
        named = {"client": client, "issuer": issuer, "subject": subject}  # ASCII: compare_digest
        return "oauth:" + json.dumps(named, sort_keys=True, separators=(",", ":"))
    header = ctx.request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return "http:anonymous"
    return "http:" + hashlib.sha256(token.strip().encode()).hexdigest()[:32]
