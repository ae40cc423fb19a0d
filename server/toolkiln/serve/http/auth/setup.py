"""toolkiln's OAuth check made from config/server.json `oauth`."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx2

from toolkiln.errors import ConfigError
from toolkiln.model.oauth import OAuthSettings
from toolkiln.runner.registry import Registry
from toolkiln.serve.http.auth.errors import TokenRefused
from toolkiln.serve.http.auth.gate import OAuthGate, Verifier
from toolkiln.serve.http.auth.keys import KeySet
from toolkiln.serve.http.auth.metadata import find_jwks_uri, metadata_routes

__all__ = [
    "OAuthGate",
    "TokenRefused",
    "gate_for",
    "metadata_routes",
    "open_gate",
    "open_verifier",
    "supported_scopes",
]

FETCH_TIMEOUT = httpx2.Timeout(10.0)


def open_gate(
    settings: OAuthSettings, tool_scopes: Callable[[str], Sequence[str] | None], max_body_bytes: int
) -> OAuthGate:
    return OAuthGate(settings, open_verifier(settings), tool_scopes, max_body_bytes)


def open_verifier(settings: OAuthSettings) -> Verifier:
    """Introspection when `oauth.introspection` is set, else JWTs against the JWKS."""
    if settings.introspection is not None:
        from toolkiln.serve.http.auth.introspect import IntrospectionVerifier

        secret = _introspection_secret(settings)
        return IntrospectionVerifier(settings, httpx2.AsyncClient(timeout=FETCH_TIMEOUT), secret)
    from toolkiln.serve.http.auth.jwt_tokens import JwtVerifier

    return JwtVerifier(settings, open_key_set(settings))


def open_key_set(settings: OAuthSettings) -> KeySet:
    located: list[str] = []

    async def fetch() -> dict[str, Any]:
        async with httpx2.AsyncClient(timeout=FETCH_TIMEOUT) as client:
            if not located:
                located.append(await find_jwks_uri(settings, client))
            response = await client.get(located[0], headers={"Accept": "application/json"})
            response.raise_for_status()
            document: dict[str, Any] = response.json()
            return document

    return KeySet(
        fetch,
        cache_seconds=settings.jwks_cache_seconds,
        min_refresh_seconds=settings.jwks_min_refresh_seconds,
    )


def _introspection_secret(settings: OAuthSettings) -> str:
    endpoint = settings.introspection
    assert endpoint is not None
    if endpoint.client_secret_env:
        secret = os.environ.get(endpoint.client_secret_env, "")
        if not secret:
            raise ConfigError(
                f"config/server.json: oauth.introspection.client_secret_env names "
                f"{endpoint.client_secret_env}, which is not set"
            )
        return secret
    if endpoint.client_secret_file:
        try:
            return Path(endpoint.client_secret_file).read_text(encoding="utf-8").strip()
        except OSError as error:
            raise ConfigError(
                f"config/server.json: oauth.introspection.client_secret_file: {error.strerror}"
            ) from None
    raise ConfigError("config/server.json: oauth.introspection needs client_secret_env or client_secret_file")


def supported_scopes(registry: Registry) -> list[str]:
    """What the resource metadata lists: the scopes every request needs, and every tool's."""
    settings = registry.catalog.oauth
    required = settings.required_scopes if settings is not None else []
    return sorted({*required, *(scope for tool in registry.tools.values() for scope in tool.scopes)})


def gate_for(settings: OAuthSettings, registry: Callable[[], Registry], max_body_bytes: int) -> OAuthGate:
    """The gate of `serve --http`: the scopes of a called tool read from the catalog served now."""

    def tool_scopes(name: str) -> Sequence[str] | None:
        tool = registry().tools.get(name)
        return tool.scopes if tool is not None else None

    return open_gate(settings, tool_scopes, max_body_bytes)
