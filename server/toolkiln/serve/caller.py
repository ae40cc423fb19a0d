"""Who called, as the OAuth check found it: for tools/list, tools/call and the audit log.

Imports nothing but the SDK's user type, so the handlers may use it whether or not
OAuth is configured.
"""

from __future__ import annotations

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from starlette.types import Scope


def granted_scopes(scope: Scope | None) -> frozenset[str] | None:
    """The scopes of the request's access token; None when it was not made with one
    (stdio, the shared bearer token): then every tool is the caller's."""
    user = scope.get("user") if scope is not None else None
    return frozenset(user.scopes) if isinstance(user, AuthenticatedUser) else None


def principal_fields(scope: Scope | None) -> dict[str, str]:
    """The caller for the audit log: the token's subject, client and issuer."""
    user = scope.get("user") if scope is not None else None
    if not isinstance(user, AuthenticatedUser):
        return {}
    token = user.access_token
    issuer = (token.claims or {}).get("iss")
    fields = {"subject": token.subject, "client_id": token.client_id or None, "issuer": issuer}
    return {name: str(value) for name, value in fields.items() if value}
