"""`config/server.json` `oauth`: toolkiln as an OAuth 2.1 resource server (docs/operations.md).

Without it, `serve --http` takes the one shared bearer token (the simple mode). With it,
`/mcp` and `/rpc` take access tokens of the named issuer that were issued for
`resource` (RFC 8707): JWTs checked against the issuer's JWKS, or, with
`introspection`, tokens asked about at the issuer (RFC 7662).

Only asymmetric signatures can be named in `algorithms`: `none` and the HMAC family
(whose "key" would be the issuer's public key, the algorithm-confusion attack) cannot
be written here at all.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

# RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
_SCOPE = re.compile(r"[\x21\x23-\x5b\x5d-\x7e]+")
SignatureAlgorithm = Literal[
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"
]
DEFAULT_ALGORITHMS: tuple[SignatureAlgorithm, ...] = ("RS256", "PS256", "ES256", "EdDSA")


def check_scope(scope: str) -> str:
    if not _SCOPE.fullmatch(scope):
        raise ValueError(
            f"{scope!r} is not an OAuth scope: one word of printable characters, "
            "without spaces, quotes or backslashes (RFC 6749 §3.3)"
        )
    return scope


def check_https_url(url: str) -> str:
    """An absolute https URL without a fragment; http only on a loopback host."""
    try:
        parts = urlsplit(url)
    except ValueError as error:
        raise ValueError(f"{url!r} is not a URL: {error}") from None
    if parts.fragment or "#" in url:
        raise ValueError(f"{url!r} has a fragment (#...), which an OAuth URL may not have")
    if not parts.hostname:
        raise ValueError(f"{url!r} names no host: give https://HOST/...")
    if parts.scheme == "http" and _is_loopback(parts.hostname):
        return url
    if parts.scheme != "https":
        raise ValueError(f"{url!r} must be an https:// URL (http:// only on a loopback address)")
    return url


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


Scope = Annotated[str, AfterValidator(check_scope)]
HttpsUrl = Annotated[str, AfterValidator(check_https_url)]


class IntrospectionSettings(BaseModel):
    """Token introspection (RFC 7662): the issuer is asked about each token (kept for
    `cache_seconds`, never past its expiry). The client secret is read from a file or an
    environment variable at start, never written in a config file."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    endpoint: HttpsUrl
    client_id: str = Field(min_length=1)
    client_secret_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    client_secret_file: str | None = None
    cache_seconds: float = Field(default=30.0, ge=0)


class OAuthSettings(BaseModel):
    """`config/server.json` `oauth`."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    # The authorization server whose tokens are taken: its `iss`, exactly.
    issuer: HttpsUrl
    # This server's resource URI as clients name it (RFC 8707, RFC 9728): its /mcp URL.
    resource: HttpsUrl
    # Named in the Protected Resource Metadata (default: the issuer alone).
    authorization_servers: list[HttpsUrl] = Field(default_factory=list)
    # Where the issuer's keys are (default: `jwks_uri` of the issuer's metadata).
    jwks_uri: HttpsUrl | None = None
    introspection: IntrospectionSettings | None = None
    algorithms: list[SignatureAlgorithm] = Field(
        default_factory=lambda: list(DEFAULT_ALGORITHMS), min_length=1
    )
    # Scopes every request needs (listing tools, reading resources, ...), e.g. ["mcp:tools"].
    required_scopes: list[Scope] = Field(default_factory=list)
    # Scopes a call of a tool with this tag needs, besides the tool's own `scopes`.
    tag_scopes: dict[str, list[Scope]] = Field(default_factory=dict)
    # Clock skew allowed on `exp`, `nbf` and `iat`.
    leeway_seconds: float = Field(default=30.0, ge=0, le=300)
    # How long the issuer's keys are kept before they are fetched again, and how soon after
    # a fetch a token naming an unknown key may cause another (rotation).
    jwks_cache_seconds: float = Field(default=300.0, gt=0)
    jwks_min_refresh_seconds: float = Field(default=5.0, ge=0)

    @property
    def servers(self) -> list[str]:
        return self.authorization_servers or [self.issuer]
