"""The issuer's signing keys (its JWKS), fetched once and kept.

A token names its key (`kid`). A key this set holds is used at once, without I/O (the
per-call cost). A key it does not hold makes it fetch the JWKS again (the issuer has
rotated its keys), at most once every `min_refresh_seconds`, one fetch at a time
whatever the number of callers; the whole set is replaced, so a key the issuer
withdrew stops being accepted. After `cache_seconds` the set is fetched again too.

Only asymmetric signing keys are kept: a symmetric (`oct`) key, or one marked for
encryption (`use: enc`), is dropped when the set is read, so no token is ever checked
with the issuer's public key taken as an HMAC secret.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from jwt import PyJWK
from jwt.exceptions import PyJWKError

from toolkiln.serve.http.auth.errors import TokenRefused

logger = logging.getLogger(__name__)

# Which key type (and curve) each signature algorithm needs.
KEY_TYPES: dict[str, tuple[str, str | None]] = {
    **{alg: ("RSA", None) for alg in ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512")},
    "ES256": ("EC", "P-256"),
    "ES384": ("EC", "P-384"),
    "ES512": ("EC", "P-521"),
    "EdDSA": ("OKP", None),
}
Fetch = Callable[[], Awaitable[dict[str, Any]]]


class KeySet:
    """The issuer's public keys by `kid`, each made a key object once per algorithm."""

    def __init__(self, fetch: Fetch, *, cache_seconds: float, min_refresh_seconds: float) -> None:
        self.fetch = fetch
        self.cache_seconds = cache_seconds
        self.min_refresh_seconds = min_refresh_seconds
        self._jwks: dict[str, dict[str, Any]] = {}  # kid ("" when the key has none) -> JWK
        self._objects: dict[tuple[str, str], Any] = {}  # (kid, alg) -> the key object
        self._fetched_at = -float("inf")
        self._lock = anyio.Lock()
        self.fetches = 0  # how many times the set was fetched: what a token checked before depends on

    def fresh(self) -> bool:
        """Whether the set was fetched less than `cache_seconds` ago."""
        return time.monotonic() - self._fetched_at <= self.cache_seconds

    def cached(self, kid: str, alg: str) -> Any | None:
        """The key object for `kid` and `alg` if this set holds it and is fresh: no I/O."""
        if not self.fresh():
            return None
        found = self._objects.get((kid, alg))
        return found if found is not None else self._make(kid, alg)

    async def key_for(self, kid: str, alg: str) -> Any:
        """The key object for `kid` and `alg`, fetching the set again when it is unknown."""
        found = self.cached(kid, alg)
        if found is not None:
            return found
        async with self._lock:  # one fetch at a time; a caller that waited finds it done
            found = self.cached(kid, alg)
            if found is not None:
                return found
            age = time.monotonic() - self._fetched_at
            if age <= self.cache_seconds and age < self.min_refresh_seconds:
                raise TokenRefused(f"the token's key {kid!r} is not one of the issuer's keys")
            await self._refresh()
        found = self.cached(kid, alg)
        if found is None:
            raise TokenRefused(f"the token's key {kid!r} is not one of the issuer's keys (fetched again)")
        return found

    async def _refresh(self) -> None:
        try:
            document = await self.fetch()
        except Exception as error:  # the issuer is unreachable: refuse, and try again later
            self._fetched_at = time.monotonic() - self.cache_seconds + self.min_refresh_seconds
            logger.warning("could not fetch the issuer's keys: %s", error)
            raise TokenRefused(f"the issuer's keys could not be fetched: {error}") from None
        keys = document.get("keys") if isinstance(document, dict) else None
        if not isinstance(keys, list):
            raise TokenRefused("the issuer's JWKS has no `keys` list")
        signing = {
            str(jwk.get("kid", "")): jwk
            for jwk in keys
            if isinstance(jwk, dict)
            and jwk.get("kty") in ("RSA", "EC", "OKP")
            and jwk.get("use", "sig") == "sig"
        }
        self._jwks, self._objects = signing, {}
        self._fetched_at = time.monotonic()
        self.fetches += 1
        logger.info("fetched the issuer's keys: %s", ", ".join(sorted(signing)) or "none")

    def _make(self, kid: str, alg: str) -> Any | None:
        jwk = self._jwks.get(kid)
        if jwk is None and not kid and len(self._jwks) == 1:  # a token without kid, one key
            jwk = next(iter(self._jwks.values()))
        if jwk is None:
            return None
        kty, curve = KEY_TYPES[alg]
        if jwk.get("kty") != kty or (curve is not None and jwk.get("crv") != curve):
            raise TokenRefused(f"the token's algorithm {alg} does not fit its key {kid!r} ({jwk.get('kty')})")
        if jwk.get("alg", alg) != alg:
            raise TokenRefused(f"the token's algorithm {alg} is not its key's ({jwk.get('alg')})")
        try:
            made = PyJWK(jwk, algorithm=alg).key
        except PyJWKError as error:
            raise TokenRefused(f"the issuer's key {kid!r} cannot be read: {error}") from None
        self._objects[(kid, alg)] = made
        return made
