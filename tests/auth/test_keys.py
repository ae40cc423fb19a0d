"""The issuer's key set (serve/http/auth/keys.py): fetched again for an unknown key, but not
for every made-up `kid`, one fetch at a time; only asymmetric signing keys kept."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

from toolkiln.serve.http.auth.errors import TokenRefused
from toolkiln.serve.http.auth.keys import KeySet


def _public(kid: str) -> dict[str, Any]:
    jwk: dict[str, Any] = json.loads(ECAlgorithm.to_jwk(ec.generate_private_key(ec.SECP256R1()).public_key()))
    return {**jwk, "kid": kid, "alg": "ES256", "use": "sig"}


class Issuer:
    """What the issuer's jwks_uri answers, and how often it was asked."""

    def __init__(self, *keys: dict[str, Any]) -> None:
        self.keys = list(keys)
        self.asked = 0

    async def fetch(self) -> dict[str, Any]:
        self.asked += 1
        await anyio.sleep(0.01)  # callers that arrive meanwhile wait for this one fetch
        return {"keys": self.keys}


def test_made_up_key_ids_do_not_become_requests_to_the_issuer() -> None:
    issuer = Issuer(_public("real"))
    keys = KeySet(issuer.fetch, cache_seconds=300, min_refresh_seconds=60)

    async def run() -> None:
        assert await keys.key_for("real", "ES256") is not None
        for number in range(50):
            with pytest.raises(TokenRefused, match="not one of the issuer's keys"):
                await keys.key_for(f"made-up-{number}", "ES256")

    anyio.run(run)
    assert issuer.asked == 1


def test_callers_naming_a_new_key_at_once_share_one_fetch_and_the_old_key_is_dropped() -> None:
    issuer = Issuer(_public("old"))
    keys = KeySet(issuer.fetch, cache_seconds=300, min_refresh_seconds=0)
    found: list[Any] = []

    async def run() -> None:
        await keys.key_for("old", "ES256")
        issuer.keys = [_public("new")]  # the issuer rotated
        async with anyio.create_task_group() as group:
            for _ in range(20):
                group.start_soon(lambda: _append(found, keys.key_for("new", "ES256")))
        assert keys.cached("old", "ES256") is None

    anyio.run(run)
    assert len(found) == 20 and issuer.asked == 2


async def _append(found: list[Any], key: Any) -> None:
    found.append(await key)


def test_only_asymmetric_signing_keys_are_kept_and_each_fits_its_algorithm() -> None:
    secret = {"kty": "oct", "kid": "hmac", "k": "c2VjcmV0", "alg": "HS256"}
    encryption = {**_public("enc"), "use": "enc"}
    issuer = Issuer(secret, encryption, _public("ec"))
    keys = KeySet(issuer.fetch, cache_seconds=300, min_refresh_seconds=60)

    async def run() -> None:
        await keys.key_for("ec", "ES256")
        for kid in ("hmac", "enc"):
            with pytest.raises(TokenRefused):
                await keys.key_for(kid, "ES256")
        with pytest.raises(TokenRefused, match="does not fit its key"):
            await keys.key_for("ec", "RS256")  # an RSA algorithm with an EC key

    anyio.run(run)
