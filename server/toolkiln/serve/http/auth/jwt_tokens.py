"""Access tokens that are JWTs (RFC 9068), checked against the issuer's keys.

Every check is made on every token: the signature, with an algorithm of the configured
list only (`none` and HMAC cannot be configured: model/oauth.py) and a key of the
issuer's JWKS whose type fits it; `iss` equal to the issuer; `aud` naming this
server's resource URI (RFC 8707: a token issued for another resource is refused);
`exp` present and not past, `nbf` and `iat` not in the future (a small leeway).

A token that passed is remembered (by its SHA-256, at most MAX_VERIFIED of them) until
it expires or the keys are fetched again, whichever comes first: a client sends the same
token on every call, and its signature need not be checked again each time (an ES256
check costs ~0.1-0.5 ms; a remembered token, a hash and a look-up). Its expiry is still
checked on every call, and a fetch of the keys (rotation, a withdrawn key) forgets them
all, so each is checked again against the keys the issuer publishes now.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

import jwt
from mcp.server.auth.provider import AccessToken

from toolkiln.model.oauth import OAuthSettings
from toolkiln.serve.http.auth.errors import TokenRefused
from toolkiln.serve.http.auth.keys import KeySet

_REQUIRED = ["exp", "iss", "aud"]
MAX_VERIFIED = 10_000


class JwtVerifier:
    """Turns a JWT access token into the SDK's `AccessToken`, or raises `TokenRefused`."""

    def __init__(self, settings: OAuthSettings, keys: KeySet) -> None:
        self.settings = settings
        self.keys = keys
        self.algorithms = frozenset(settings.algorithms)
        self._jwt = jwt.PyJWT({"require": _REQUIRED, "verify_signature": True})
        self._verified: dict[bytes, AccessToken] = {}  # by the token's SHA-256
        self._verified_with = self.keys.fetches  # the key set they were checked against

    async def verify_token(self, token: str) -> AccessToken:
        digest = hashlib.sha256(token.encode()).digest()
        if self._verified_with != self.keys.fetches:
            self._verified.clear()
            self._verified_with = self.keys.fetches
        known = self._verified.get(digest) if self.keys.fresh() else None
        if known is not None and known.expires_at is not None:
            if known.expires_at + self.settings.leeway_seconds >= time.time():
                return known
            del self._verified[digest]
            raise TokenRefused("the token has expired")
        alg, kid = self._header(token)
        key = self.keys.cached(kid, alg)
        if key is None:
            key = await self.keys.key_for(kid, alg)
        checked = self.check(token, key, alg)
        if self._verified_with == self.keys.fetches:  # not checked against keys since replaced
            if len(self._verified) >= MAX_VERIFIED:
                self._verified.clear()
            self._verified[digest] = checked
        return checked

    def check(self, token: str, key: Any, alg: str) -> AccessToken:
        """The signature and claims, with the key already found (no I/O)."""
        try:
            claims = self._jwt.decode(
                token,
                key,
                algorithms=[alg],
                audience=self.settings.resource,
                issuer=self.settings.issuer,
                leeway=self.settings.leeway_seconds,
            )
        except jwt.ExpiredSignatureError:
            raise TokenRefused("the token has expired") from None
        except jwt.InvalidAudienceError:
            raise TokenRefused(
                f"the token was not issued for this server ({self.settings.resource})"
            ) from None
        except jwt.InvalidIssuerError:
            raise TokenRefused(f"the token was not issued by {self.settings.issuer}") from None
        except jwt.InvalidTokenError as error:
            raise TokenRefused(f"the token is not valid: {error}") from None
        return access_token(token, claims, self.settings.resource)

    def _header(self, token: str) -> tuple[str, str]:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError as error:
            raise TokenRefused(f"the token is not a JWT: {error}") from None
        alg = header.get("alg")
        if alg not in self.algorithms:
            allowed = ", ".join(sorted(self.algorithms))
            raise TokenRefused(f"the token's algorithm {alg!r} is not allowed (oauth.algorithms: {allowed})")
        kid = header.get("kid", "")
        if not isinstance(kid, str):
            raise TokenRefused("the token's `kid` is not a string")
        return str(alg), kid


def access_token(token: str, claims: dict[str, Any], resource: str) -> AccessToken:
    """The SDK's `AccessToken` from checked claims (RFC 9068, RFC 7662 names). It keeps a
    fingerprint of the token, never the token itself."""
    scope = claims.get("scope", claims.get("scp", ""))
    scopes = scope.split() if isinstance(scope, str) else [str(s) for s in scope if isinstance(s, str)]
    client = claims.get("client_id") or claims.get("azp") or ""
    subject = claims.get("sub")
    expires = claims.get("exp")
    return AccessToken(
        token="sha256:" + hashlib.sha256(token.encode()).hexdigest()[:32],
        client_id=str(client),
        scopes=scopes,
        expires_at=int(expires) if isinstance(expires, int | float) else None,
        resource=resource,
        subject=str(subject) if subject is not None else None,
        claims={"iss": claims.get("iss"), **({"jti": claims["jti"]} if "jti" in claims else {})},
    )
