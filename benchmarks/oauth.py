"""What the OAuth check costs a request (serve/http/auth/), in this process: a JWT access token
checked with its issuer's key already fetched (the signature and every claim), per
algorithm; and the whole check in front of a `tools/call` (the Guard with `oauth`: the
token, the body's tool and its scopes) beside the Guard with the shared bearer token,
each handing the request to an app that does nothing. Medians in microseconds.

The issue's goal: a cached-key JWT validated in at most 0.2 ms per call.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import jwt
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm

from benchmarks.markdown import table
from benchmarks.rounds import Figures, Preset, rotated
from toolkiln.model.oauth import OAuthSettings
from toolkiln.serve.http.auth.gate import OAuthGate
from toolkiln.serve.http.auth.jwt_tokens import JwtVerifier
from toolkiln.serve.http.auth.keys import KeySet
from toolkiln.serve.http.guard import Admission, Guard

ISSUER = "https://issuer.example"
RESOURCE = "https://mcp.example/mcp"
REPEAT = 200
BODY = json.dumps(
    {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "deploy", "arguments": {"x": 1}}}
).encode()
KEYS: dict[str, Callable[[], Any]] = {
    "ES256": lambda: ec.generate_private_key(ec.SECP256R1()),
    "RS256": lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048),
    "EdDSA": ed25519.Ed25519PrivateKey.generate,
}
TO_JWK = {"ES256": ECAlgorithm, "RS256": RSAAlgorithm, "EdDSA": OKPAlgorithm}


def measure_oauth(root: Path, preset: Preset) -> Figures:
    """Every step is timed REPEAT times in a row, the steps taking turns within each round
    (the machine is shared: a busy moment weighs on all of them alike); medians of rounds."""
    rounds = max(5, preset.calls // 10)
    steps: dict[str, tuple[str, Callable[..., Awaitable[Any]], tuple[Any, ...]]] = {}
    for alg, make in KEYS.items():
        verifier, token = _verifier(alg, make())
        anyio.run(verifier.verify_token, token)  # the keys fetched once, as a server's first call
        label = f"a cached-key JWT ({alg}) first seen: signature, iss, aud, exp, nbf"
        steps[f"jwt_{alg}"] = (label, _check_whole, (verifier, token, alg))
    verifier, token = _verifier("ES256", KEYS["ES256"]())
    anyio.run(verifier.verify_token, token)
    label = "a JWT already checked (the same token on a later call): hash, look-up, exp"
    steps["jwt_repeated"] = (label, verifier.verify_token, (token,))
    gate = OAuthGate(verifier.settings, verifier, lambda name: ["tools:deploy"], 4 * 1024 * 1024)
    hosts = ("127.0.0.1:*",)
    oauth_guard = Guard(_nothing, Admission(token="shared", allowed_hosts=hosts, oauth=gate), None)
    token_guard = Guard(_nothing, Admission(token="shared", allowed_hosts=hosts), None)
    label = "the Guard with the shared bearer token, to the app (a tools/call)"
    steps["guard_token"] = (label, _request, (token_guard, "shared"))
    label = "the Guard with OAuth (ES256 JWT checked before, the call's scopes), to the app"
    steps["guard_oauth"] = (label, _request, (oauth_guard, token))
    timed: dict[str, list[float]] = {name: [] for name in steps}
    names = list(steps)
    for turn in range(rounds):
        for name in rotated(names, turn):
            _, step, args = steps[name]
            timed[name].append(anyio.run(_per_call_us, step, args))
    figures: Figures = {
        name: {"label": steps[name][0], "median_us": round(statistics.median(values), 1)}
        for name, values in timed.items()
    }
    figures["guard_oauth"]["over_token_us"] = round(
        figures["guard_oauth"]["median_us"] - figures["guard_token"]["median_us"], 1
    )
    return figures


def _verifier(alg: str, private: Any) -> tuple[JwtVerifier, str]:
    jwk: dict[str, Any] = TO_JWK[alg].to_jwk(private.public_key(), as_dict=True)  # type: ignore[attr-defined]
    jwk |= {"kid": "bench", "alg": alg, "use": "sig"}

    async def fetch() -> dict[str, Any]:
        return {"keys": [jwk]}

    settings = OAuthSettings(issuer=ISSUER, resource=RESOURCE, algorithms=[alg])  # type: ignore[list-item]
    keys = KeySet(fetch, cache_seconds=3600, min_refresh_seconds=5)
    now = int(time.time())
    claims = {
        "iss": ISSUER, "aud": RESOURCE, "sub": "alice", "client_id": "bench",
        "scope": "mcp:tools tools:deploy", "iat": now, "exp": now + 3600, "jti": "bench",
    }  # fmt: skip
    token = jwt.encode(claims, private, algorithm=alg, headers={"kid": "bench", "typ": "at+jwt"})
    return JwtVerifier(settings, keys), token


async def _check_whole(verifier: JwtVerifier, token: str, alg: str) -> None:
    """What `verify_token` does with a token it has not seen: the header, the key, every check."""
    header = jwt.get_unverified_header(token)
    verifier.check(token, verifier.keys.cached(header["kid"], alg), alg)


async def _nothing(scope: Any, receive: Any, send: Any) -> None:
    await receive()  # the body, as a route would read it
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})


async def _request(guard: Guard, token: str) -> None:
    scope = {
        "type": "http", "method": "POST", "path": "/mcp", "scheme": "http", "client": ("127.0.0.1", 1),
        "headers": [(b"host", b"127.0.0.1:8765"), (b"content-type", b"application/json"),
                    (b"authorization", f"Bearer {token}".encode())],
    }  # fmt: skip
    sent: list[Any] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": BODY, "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    await guard(scope, receive, send)
    assert sent[0]["status"] == 200, sent


async def _per_call_us(step: Callable[..., Awaitable[Any]], args: tuple[Any, ...]) -> float:
    started = time.perf_counter()
    for _ in range(REPEAT):
        await step(*args)
    return (time.perf_counter() - started) / REPEAT * 1e6


def oauth_table(figures: Figures) -> str:
    rows = [
        (
            f["label"],
            f"{f['median_us']:.1f}",
            f"{f['over_token_us']:+.1f} µs" if "over_token_us" in f else "-",
        )
        for f in figures.values()
    ]
    intro = (
        "The OAuth check of a request, in one process (the median of rounds of 200): a JWT whose "
        "key is already fetched, per algorithm, and the whole Guard in front of a `tools/call` "
        "with OAuth beside the same Guard with the shared token.\n\n"
    )
    return intro + table(["step", "µs (median)", "over the shared token"], rows)
