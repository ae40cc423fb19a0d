"""Who may talk to the HTTP server: the Host and Origin checks, and the bearer token.

One ASGI middleware in front of every route: a bad Host gets 421 (DNS rebinding), a
request a browser sends from another origin 403 (what the MCP spec asks), a POST to
`/rpc` or `/mcp` whose body is not declared JSON 415, then every route but `/health`
needs `Authorization: Bearer <token>`, compared in constant time; without it, 401 with
`WWW-Authenticate`. With config/server.json `oauth`, `/mcp` and `/rpc` take OAuth access
tokens instead, checked by the `Authenticator` it names (serve/http/auth/gate.py). The
dashboard's routes (`delegated`) check the token themselves, as
a header or a session cookie; no other route ever looks at a cookie. Every denial goes
to the audit log.

Hosts: with a loopback bind, the loopback names and any loopback address; else the
names given with `--allow-host` (none given: no check). Always the address the request
reached, written as an IP (`127.0.0.11:8765`, `[fd00::5]:8765`): the address the server
is bound to, which its banner prints and a health probe or a proxy by IP uses. An IP
written as the Host cannot be a DNS-rebinding attack, which needs a name the attacker
resolves: the browser connects to exactly the address it shows.

Origins: a browser's request may come only from the server's own origin (the scheme
and the Host it was asked for, when Hosts are checked) or from one given with
`--allow-origin`; not from another port of localhost, not from `null` (a sandboxed
frame, a file). A browser that sends no Origin still says where a request comes from
in `Sec-Fetch-Site`: from another site it is refused, but a link followed to a page
(a GET navigation, which changes nothing here). Only JSON bodies reach `/rpc` and
`/mcp`: a page can send a `text/plain` or form POST to any port without asking first
(a CORS-simple request), never an `application/json` one.
"""

from __future__ import annotations

import functools
import hmac
import ipaddress
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from toolkiln.audit import AuditLog
from toolkiln.audit.denials import shorten
from toolkiln.http_token import Tokens

logger = logging.getLogger(__name__)

OPEN_PATHS = frozenset({"/health", "/ready"})  # the probes: no token
JSON_ONLY_PATHS = frozenset({"/rpc", "/mcp"})  # their POST bodies: application/json only
FOREIGN_SITES = frozenset({"cross-site", "same-site"})  # Sec-Fetch-Site; another port is same-site
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


Refuse = Callable[[Scope, int, str, list[tuple[bytes, bytes]]], Awaitable[None]]


class Authenticator(Protocol):
    """Who checks the credentials of some paths instead of the shared token (OAuth)."""

    open_paths: frozenset[str]  # its own public documents (the resource metadata)

    def guards(self, path: str) -> bool: ...

    async def admit(
        self, scope: Scope, receive: Receive, send: Send, app: ASGIApp, refuse: Refuse
    ) -> None: ...


@dataclass(frozen=True)
class Admission:
    """Which Host and Origin headers are allowed, and the token (None: no auth)."""

    token: str | None
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    check_hosts: bool = True
    oauth: Authenticator | None = None  # config/server.json `oauth`: /mcp and /rpc take its tokens
    # Every token of the token file, read again when it changes (serve/http/credentials.py).
    tokens: Tokens | None = None

    @classmethod
    def for_bind(
        cls,
        host: str,
        token: str | None,
        *,
        extra_hosts: tuple[str, ...] = (),
        extra_origins: tuple[str, ...] = (),
        tokens: Tokens | None = None,
    ) -> Admission:
        """Loopback binds accept only loopback names; elsewhere the Host check needs --allow-host."""
        loopback = is_loopback(host)
        hosts = (*(f"{name}:*" for name in LOOPBACK_NAMES), *LOOPBACK_NAMES) if loopback else ()
        return cls(
            token=token,
            allowed_hosts=(*hosts, *extra_hosts),
            allowed_origins=extra_origins,
            check_hosts=loopback or bool(extra_hosts),
            tokens=tokens,
        )

    def host_allowed(self, host: str | None, reached: str | None = None) -> bool:
        """Whether `host` (the Host header) may be served; `reached`: the address the
        request reached (the ASGI scope's `server`), itself always allowed as an IP."""
        if not self.check_hosts or _matches(host, self.allowed_hosts):
            return True
        address = _ip_of_host(host)
        if address is None:
            return False
        loopback_bind = any(name in self.allowed_hosts for name in LOOPBACK_NAMES)
        return (address.is_loopback and loopback_bind) or (reached is not None and _same_ip(address, reached))

    def origin_allowed(self, origin: str | None, scheme: str, host: str | None) -> bool:
        """No Origin (not a browser's cross-origin request), the server's own (when the
        Host it names has been checked), or one the user allowed."""
        if origin is None:
            return True
        own = self.check_hosts and host is not None and origin.lower() == f"{scheme}://{host}".lower()
        return own or _matches(origin, self.allowed_origins)

    def token_accepted(self, authorization: str | None) -> bool:
        if self.token is None:
            return True
        if self.tokens is None:
            return bearer_matches(authorization, self.token)
        scheme, _, credentials = (authorization or "").partition(" ")
        return scheme.lower() == "bearer" and self.tokens.accepts(credentials)


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
    """Log and audit a refused request: the Guard's refusals and the dashboard's own.
    Denials are bounded and summarised past a budget (audit/denials.py); the server's
    log says only what the audit log writes whole."""
    if audit is None:
        logger.warning("denied %s %s from %s: %s", method, shorten(path), client, shorten(reason))
        return
    written = audit.record_denial(client=client, status=status, transport="http", path=path, error=reason)
    if written is not None:
        shown = (written["path"], written["client"], written["error"])
        logger.warning("denied %s %s from %s: %s", method, *shown)


def _matches(value: str | None, patterns: tuple[str, ...]) -> bool:
    if not value:
        return False
    return any(value == p or (p.endswith(":*") and value.startswith(p[:-1]) and value[len(p) - 1 :].isdigit())
               for p in patterns)  # fmt: skip


def _ip_of_host(host: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP a Host header is written as (`10.0.0.5`, `10.0.0.5:8765`, `[fd00::5]:8765`);
    None for a name."""
    if not host:
        return None
    try:
        if host.startswith("["):  # IPv6 only, in brackets
            literal, _, rest = host[1:].partition("]")
            if rest and not (rest.startswith(":") and rest[1:].isdigit()):
                return None
            return ipaddress.IPv6Address(literal)
        literal, _, port = host.partition(":")
        if port and not port.isdigit():
            return None
        return ipaddress.IPv4Address(literal)
    except ValueError:
        return None


def _same_ip(address: ipaddress.IPv4Address | ipaddress.IPv6Address, reached: str) -> bool:
    try:
        other = ipaddress.ip_address(reached.partition("%")[0])
    except ValueError:
        return False
    if isinstance(other, ipaddress.IPv6Address) and other.ipv4_mapped is not None:
        other = other.ipv4_mapped
    return address == other


def _from_another_site(method: str, headers: Headers) -> bool:
    """A browser's request from another site, other than following a link to a page."""
    if headers.get("sec-fetch-site", "").lower() not in FOREIGN_SITES:
        return False
    navigation = method in ("GET", "HEAD") and headers.get("sec-fetch-mode", "").lower() == "navigate"
    return not navigation


def _is_json(content_type: str | None) -> bool:
    """`application/json`, with parameters (`; charset=utf-8`) or without."""
    return (content_type or "").split(";", 1)[0].strip().lower() == "application/json"


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
        denial = self._denial(scope, headers)
        oauth = self.admission.oauth
        if denial is None and oauth is not None and oauth.guards(scope["path"]):
            refuse = functools.partial(self._refuse, send=send)
            await oauth.admit(scope, receive, send, self.app, refuse)
            return
        if denial is None:
            await self.app(scope, receive, send)
            return
        status, reason = denial
        extra = [(b"www-authenticate", b'Bearer realm="toolkiln"')] if status == 401 else []
        await self._refuse(scope, status, reason, extra, send)

    async def _refuse(
        self, scope: Scope, status: int, reason: str, extra: list[tuple[bytes, bytes]], send: Send
    ) -> None:
        """Answer `status` with the reason, and audit it."""
        client = scope.get("client")
        record_denial(
            self.audit, scope["method"], scope["path"], client[0] if client else None, status, reason
        )
        body = json.dumps({"error": reason}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json"), *extra],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _denial(self, scope: Scope, headers: Headers) -> tuple[int, str] | None:
        path, method, host, origin = (
            scope["path"],
            scope["method"],
            headers.get("host"),
            headers.get("origin"),
        )
        server = scope.get("server")
        if not self.admission.host_allowed(host, server[0] if server else None):
            return 421, f"Host {host!r} is not allowed"
        if not self.admission.origin_allowed(origin, scope.get("scheme", "http"), host):
            return 403, f"Origin {origin!r} is not allowed (add it with --allow-origin)"
        if origin is None and _from_another_site(method, headers):
            return 403, "a browser's request from another site (Sec-Fetch-Site) is not allowed"
        if method == "POST" and path in JSON_ONLY_PATHS and not _is_json(headers.get("content-type")):
            return 415, "the body must be JSON (Content-Type: application/json)"
        if path in OPEN_PATHS or (self.delegated is not None and self.delegated(path)):
            return None
        oauth = self.admission.oauth
        if oauth is not None and (oauth.guards(path) or path in oauth.open_paths):
            return None  # its own check (after Host and Origin), or its public metadata
        if not self.admission.token_accepted(headers.get("authorization")):
            return 401, "missing or wrong bearer token (Authorization: Bearer <token>)"
        return None
