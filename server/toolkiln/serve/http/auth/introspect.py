"""Access tokens checked by asking the issuer (token introspection, RFC 7662).

For opaque tokens, or to see a revocation at once. The answer must say `active`, name
the issuer (when it names one) and this server's resource in `aud`, and carry an `exp`
not past: the same checks as a JWT's. An answer is kept for `cache_seconds`, never
past the token's expiry, under a hash of the token.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

import httpx2
from mcp.server.auth.provider import AccessToken

from toolkiln.model.oauth import OAuthSettings
from toolkiln.serve.http.auth.errors import TokenRefused
from toolkiln.serve.http.auth.jwt_tokens import access_token

MAX_CACHED = 10_000


class IntrospectionVerifier:
    def __init__(self, settings: OAuthSettings, client: httpx2.AsyncClient, secret: str) -> None:
        assert settings.introspection is not None
        self.settings = settings
        self.endpoint = settings.introspection
        self.client = client
        self.auth = httpx2.BasicAuth(self.endpoint.client_id, secret)
        self._cache: dict[str, tuple[float, AccessToken]] = {}

    async def verify_token(self, token: str) -> AccessToken:
        digest = hashlib.sha256(token.encode()).hexdigest()
        kept = self._cache.get(digest)
        now = time.time()
        if kept is not None and kept[0] > now and (kept[1].expires_at or 0) > now:
            return kept[1]
        answer = await self._ask(token)
        checked = self.check(token, answer, now)
        if len(self._cache) >= MAX_CACHED:
            self._cache.clear()
        self._cache[digest] = (now + self.endpoint.cache_seconds, checked)
        return checked

    def check(self, token: str, answer: dict[str, Any], now: float) -> AccessToken:
        if answer.get("active") is not True:
            raise TokenRefused("the issuer says the token is not active")
        issuer = answer.get("iss", self.settings.issuer)
        if issuer != self.settings.issuer:
            raise TokenRefused(f"the token was not issued by {self.settings.issuer}")
        audience = answer.get("aud")
        audiences = (
            [audience] if isinstance(audience, str) else audience if isinstance(audience, list) else []
        )
        if self.settings.resource not in audiences:
            raise TokenRefused(f"the token was not issued for this server ({self.settings.resource})")
        expires = answer.get("exp")
        if not isinstance(expires, int | float) or expires + self.settings.leeway_seconds < now:
            raise TokenRefused("the token has expired (or has no `exp`)")
        return access_token(token, {**answer, "iss": issuer}, self.settings.resource)

    async def _ask(self, token: str) -> dict[str, Any]:
        try:
            response = await self.client.post(
                self.endpoint.endpoint,
                data={"token": token, "token_type_hint": "access_token"},
                auth=self.auth,
                headers={"Accept": "application/json"},
            )
            response.raise_for_status()
            answer = response.json()
        except (httpx2.HTTPError, ValueError) as error:
            raise TokenRefused(f"the issuer could not be asked about the token: {error}") from None
        if not isinstance(answer, dict):
            raise TokenRefused("the issuer's introspection answer is not a JSON object")
        return answer
