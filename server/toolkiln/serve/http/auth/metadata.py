"""What this resource server publishes, and what it learns of its issuer.

- Its Protected Resource Metadata (RFC 9728, the SDK's model and handler), at
  `/.well-known/oauth-protected-resource` followed by the resource URI's path (where
  an MCP client looks first) and at the bare well-known path.
- The `WWW-Authenticate` challenges of a 401 (`resource_metadata`, `scope`) and of a
  403 `insufficient_scope` (the scopes the request needs).
- The issuer's `jwks_uri`, from its metadata (RFC 8414, else OpenID discovery),
  whose `issuer` must be the configured one.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import httpx2
from mcp.server.auth.handlers.metadata import ProtectedResourceMetadataHandler
from mcp.server.auth.routes import build_resource_metadata_url
from mcp.shared.auth import ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.routing import Route

from toolkiln.model.oauth import OAuthSettings

WELL_KNOWN = "/.well-known/oauth-protected-resource"


def metadata_url(settings: OAuthSettings) -> str:
    return str(build_resource_metadata_url(AnyHttpUrl(settings.resource)))


def metadata_paths(settings: OAuthSettings) -> frozenset[str]:
    return frozenset({WELL_KNOWN, urlsplit(metadata_url(settings)).path})


def metadata_routes(settings: OAuthSettings, scopes_supported: list[str]) -> list[Route]:
    # Validated from strings, so that the model keeps them as written (no "/" added to
    # an issuer: a client compares it with the issuer's own metadata, RFC 8414 §3.3).
    document = ProtectedResourceMetadata.model_validate(
        {
            "resource": settings.resource,
            "authorization_servers": settings.servers,
            "scopes_supported": scopes_supported or None,
            "resource_name": "toolkiln",
        }
    )
    handler = ProtectedResourceMetadataHandler(document)
    return [Route(path, handler.handle, methods=["GET"]) for path in sorted(metadata_paths(settings))]


def challenge(settings: OAuthSettings, scopes: list[str], error: str | None = None, why: str = "") -> str:
    """A `WWW-Authenticate: Bearer ...` value (RFC 6750 §3, RFC 9728 §5.1)."""
    parts = [f'resource_metadata="{metadata_url(settings)}"']
    if scopes:
        parts.append(f'scope="{" ".join(scopes)}"')
    if error is not None:
        parts.insert(0, f'error="{error}"')
        if why:
            # A reason may quote the token (its `kid`, its `alg`): printable ASCII only, no quote.
            plain = "".join(c if " " <= c <= "~" and c not in '"\\' else "?" for c in why)[:200]
            parts.append(f'error_description="{plain}"')
    return "Bearer " + ", ".join(parts)


async def find_jwks_uri(settings: OAuthSettings, client: httpx2.AsyncClient) -> str:
    """`oauth.jwks_uri`, else the one the issuer's metadata names."""
    if settings.jwks_uri is not None:
        return settings.jwks_uri
    problems = []
    for url in _metadata_urls(settings.issuer):
        try:
            response = await client.get(url, headers={"Accept": "application/json"})
            if response.status_code != 200:
                problems.append(f"{url}: HTTP {response.status_code}")
                continue
            document: Any = response.json()
        except (httpx2.HTTPError, ValueError) as error:
            problems.append(f"{url}: {error}")
            continue
        if not isinstance(document, dict) or document.get("issuer") != settings.issuer:
            problems.append(f"{url}: names another issuer ({document.get('issuer')!r})")
            continue
        jwks_uri = document.get("jwks_uri")
        if isinstance(jwks_uri, str):
            return jwks_uri
        problems.append(f"{url}: names no jwks_uri")
    raise RuntimeError("the issuer's keys cannot be found: " + "; ".join(problems))


def _metadata_urls(issuer: str) -> list[str]:
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    origin = f"{parts.scheme}://{parts.netloc}"
    return [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{origin}{path}/.well-known/openid-configuration",
    ]
