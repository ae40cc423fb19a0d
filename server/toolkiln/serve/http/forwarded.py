"""Who a request behind a trusted proxy comes from: X-Forwarded-For and -Proto, believed
from the proxies named with `--forwarded-allow-ips` only, and then only their last hop.

A proxy such as nginx with `proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for`
appends the address it was connected from to whatever the client sent: the right-most
entry is the proxy's own word, every entry left of it the client's. So only the
right-most entry is believed, and only when it is an IP address; a request from any
other peer keeps its peer's address. (uvicorn's own middleware walks the list from the
right past every trusted address: with the proxy on 127.0.0.1, a local client's
`X-Forwarded-For: 203.0.113.9` arrived as `203.0.113.9, 127.0.0.1`, and the walk stepped
over the client's real 127.0.0.1 to the address it chose.)

What it cannot tell: a client that connects from a trusted address without the proxy
is believed as the proxy is. The addresses named must be ones only the proxy connects
from (docs/security.md, "Behind a proxy").
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

from toolkiln.errors import ConfigError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
SCHEMES = frozenset({"http", "https"})


class TrustedProxies:
    """The peers whose forwarded headers are believed: addresses, networks, or "*"."""

    def __init__(self, given: Iterable[str]) -> None:
        entries = [entry.strip() for entry in given if entry.strip()]
        self.everyone = "*" in entries
        self.networks = [_network(entry) for entry in entries if entry != "*"]

    def __contains__(self, host: str | None) -> bool:
        if host is None:
            return False
        if self.everyone:
            return True
        address = _address(host)
        return address is not None and any(address in network for network in self.networks)


def _network(entry: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    try:
        return ipaddress.ip_network(entry.strip("[]"), strict=False)
    except ValueError:
        raise ConfigError(
            f"--forwarded-allow-ips: {entry!r} is not an IP address or network; give the proxy's "
            "address (10.0.0.5), a network (10.0.0.0/24) or * (every peer: only when no client "
            "can reach the server but through the proxy)"
        ) from None


def _address(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None


def last_hop(values: list[bytes]) -> str | None:
    """The right-most entry of X-Forwarded-For (its lines joined), if it is an address."""
    if not values:
        return None
    entry = b",".join(values).decode("latin-1").rsplit(",", 1)[-1].strip()
    address = _address(entry)
    return None if address is None else str(address)


class ForwardedHeaders:
    """ASGI middleware: the client and scheme of a request that came through a trusted proxy."""

    def __init__(self, app: ASGIApp, proxies: TrustedProxies) -> None:
        self.app, self.proxies = app, proxies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            peer = scope.get("client")
            if peer and peer[0] in self.proxies:
                forwarded_for = [value for name, value in scope["headers"] if name == b"x-forwarded-for"]
                protos = [value for name, value in scope["headers"] if name == b"x-forwarded-proto"]
                client = last_hop(forwarded_for)
                if client is not None:
                    scope["client"] = (client, 0)
                proto = protos[-1].decode("latin-1").rsplit(",", 1)[-1].strip().lower() if protos else ""
                if proto in SCHEMES:
                    scope["scheme"] = proto
        await self.app(scope, receive, send)
