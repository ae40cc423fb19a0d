"""Who may talk to the HTTP server: the Host and Origin checks, and the bearer token.

One ASGI middleware in front of every route: a bad Host gets 421 and a bad Origin 403
(what the MCP spec asks against DNS rebinding), then every route but `/health` needs
`Authorization: Bearer <token>`, compared in constant time; without it, 401 with
`WWW-Authenticate`. The dashboard's routes (`delegated`) check the token themselves, as a
header or a session cookie; no other route ever looks at a cookie. Every denial goes to
the audit log.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from toolkiln.audit import AuditLog

logger = logging.getLogger(__name__)

OPEN_PATHS = frozenset({"/health"})
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Admission:
    """Which Host and Origin headers are allowed, and the token (None: no auth)."""

    token: str | None
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    check_hosts: bool = True

    @classmethod
    def for_bind(
        cls,
        host: str,
        token: str | None,
        *,
        extra_hosts: tuple[str, ...] = (),
        extra_origins: tuple[str, ...] = (),
    ) -> Admission:
        """Loopback binds accept only loopback names; elsewhere the Host check needs --allow-host."""
        loopback = is_loopback(host)
        hosts = (*(f"{name}:*" for name in LOOPBACK_NAMES), *LOOPBACK_NAMES) if loopback else ()
        origins = tuple(f"{scheme}://{name}:*" for scheme in ("http", "https") for name in LOOPBACK_NAMES)
        origins += tuple(f"{scheme}://{name}" for scheme in ("http", "https") for name in LOOPBACK_NAMES)
        return cls(
            token=token,
            allowed_hosts=(*hosts, *extra_hosts),
            allowed_origins=(*origins, *extra_origins) if loopback else extra_origins,
            check_hosts=loopback or bool(extra_hosts),
        )

    def host_allowed(self, host: str | None) -> bool:
        return not self.check_hosts or _matches(host, self.allowed_hosts)

    def origin_allowed(self, origin: str | None) -> bool:
        return origin is None or _matches(origin, self.allowed_origins)

    def token_accepted(self, authorization: str | None) -> bool:
        return self.token is None or bearer_matches(authorization, self.token)


def token_matches(presented: str, token: str) -> bool:
    """In constant time: no timing tells how much of a guess was right."""
    return hmac.compare_digest(presented.strip().encode(), token.encode())


def bearer_matches(authorization: str | None, token: str) -> bool:
    """Whether an Authorization header is `Bearer <token>`."""
    scheme, _, credentials = (authorization or "").partition(" ")
    return scheme.lower() == "bearer" and token_matches(credentials, token)


def record_denial(
    audit: AuditLog | None, method: str, path: str, client: str | None, status: int, reason: str
) -> None:
    """Log and audit a refused request: the Guard's refusals and the dashboard's own."""
    logger.warning("denied %s %s from %s: %s", method, path, client, reason)
    if audit is not None:
        audit.record(
            event="denied",
            transport="http",
            client=client,
            path=path,
            status=status,
            success=False,
            error=reason,
        )


def _matches(value: str | None, patterns: tuple[str, ...]) -> bool:
    if not value:
        return False
    return any(value == p or (p.endswith(":*") and value.startswith(p[:-1]) and value[len(p) - 1 :].isdigit())
               for p in patterns)  # fmt: skip


class Guard:
    """The ASGI middleware that applies an `Admission` to every HTTP request."""

    def __init__(
        self,
        app: ASGIApp,
        admission: Admission,
        audit: AuditLog | None,
        delegated: Callable[[str], bool] | None = None,
    ) -> None:
        self.app = app
        self.admission = admission
        self.audit = audit
        self.delegated = delegated  # paths whose routes check the token themselves

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        denial = self._denial(scope["path"], headers)
        if denial is None:
            await self.app(scope, receive, send)
            return
        status, reason = denial
        client = scope.get("client")
        record_denial(
            self.audit, scope["method"], scope["path"], client[0] if client else None, status, reason
        )
        extra = [(b"www-authenticate", b'Bearer realm="toolkiln"')] if status == 401 else []
        body = json.dumps({"error": reason}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json"), *extra],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _denial(self, path: str, headers: Headers) -> tuple[int, str] | None:
        if not self.admission.host_allowed(headers.get("host")):
            return 421, f"Host {headers.get('host')!r} is not allowed"
        if not self.admission.origin_allowed(headers.get("origin")):
            return 403, f"Origin {headers.get('origin')!r} is not allowed (add it with --allow-origin)"
        if path in OPEN_PATHS or (self.delegated is not None and self.delegated(path)):
            return None
        if not self.admission.token_accepted(headers.get("authorization")):
            return 401, "missing or wrong bearer token (Authorization: Bearer <token>)"
        return None
