"""toolkiln as an OAuth 2.1 resource server (serve/http/auth/), against a real authorization
server (panva's oidc-provider, started by the test) and the SDK's own OAuth client."""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl

from tests.auth.authorization_server import (
    AuthorizationServer,
    DevInteraction,
    authorization_server,
    free_port,
)
from tests.conftest import MakeTool, tune_tool
from tests.serve.http_server import RunningServer, http_server
from tests.serve.tasks_wire import RpcError, http_request, wait_for
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

ECHO = """\
#!/bin/sh
# Tool: echo
# Description: Says the word back
# @param word: The word (type: string, required: true)
printf '%s' "$word"
"""
DEPLOY = """\
#!/bin/sh
# Tool: deploy
# Description: Deploys, and tells what it was given
env
cat
"""
RESTART = """\
#!/bin/sh
# Tool: restart
# Description: An admin's tool
echo restarted
"""
LINGER = """\
#!/bin/sh
# Tool: linger
# Description: Works for a long while
sleep 300
"""


@dataclass
class Setup:
    issuer: AuthorizationServer
    server: RunningServer
    resource: str

    def post(self, token: str | None, method: str, params: dict[str, Any] | None = None) -> httpx2.Response:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
        headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
        return httpx2.post(f"{self.server.base_url}/rpc", json=body, headers=headers, timeout=30)

    def token(self, scope: str = "mcp:tools tools:deploy", client: str = "tester") -> str:
        return self.issuer.token(scope, self.resource, client)


def write_project(make_tool: MakeTool, tools_dir: Path, config_dir: Path, oauth: dict[str, Any]) -> None:
    for name, body in {
        "echo.sh": ECHO,
        "deploy.sh": DEPLOY,
        "restart.sh": RESTART,
        "linger.sh": LINGER,
    }.items():
        make_tool(name, body)
    assert not discover_tools(tools_dir, config_dir).errors
    path = config_dir / "tools" / "deploy.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "scopes": ["tools:deploy"]}))
    path = config_dir / "tools" / "restart.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "tags": ["admin"]}))
    tune_tool(config_dir, "linger", task="required", timeout_seconds=600)
    (config_dir / "server.json").write_text(json.dumps({"oauth": oauth}))
    build_catalog(config_dir, tools_dir)


@pytest.fixture
def setup(make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path) -> Iterator[Setup]:
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    with authorization_server(tmp_path, [resource, "http://127.0.0.1:9/mcp"]) as issuer:
        oauth = {
            "issuer": issuer.issuer,
            "resource": resource,
            "required_scopes": ["mcp:tools"],
            "tag_scopes": {"admin": ["tools:admin"]},
            "jwks_min_refresh_seconds": 0,
        }
        write_project(make_tool, tools_dir, config_dir, oauth)
        state = tmp_path / "state"
        with http_server(config_dir, state, transport=("--http", "--port", str(port))) as server:
            yield Setup(issuer, server, resource)


def test_build_compiles_each_tools_scopes_from_its_config_and_tags(setup: Setup, config_dir: Path) -> None:
    catalog = json.loads((config_dir / "tools.json").read_text())
    scopes = {tool["name"]: tool["scopes"] for tool in catalog["tools"]}
    assert scopes == {"deploy": ["tools:deploy"], "echo": [], "linger": [], "restart": ["tools:admin"]}
    assert catalog["oauth"]["resource"] == setup.resource


def test_the_resource_metadata_names_the_issuer_and_a_401_points_to_it(setup: Setup) -> None:
    base = setup.server.base_url
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
        metadata = httpx2.get(base + path, timeout=10).json()
        assert metadata["resource"] == setup.resource
        assert metadata["authorization_servers"] == [setup.issuer.issuer]
        assert metadata["scopes_supported"] == ["mcp:tools", "tools:admin", "tools:deploy"]
    refused = setup.post(None, "tools/list")
    assert refused.status_code == 401
    challenge = refused.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    assert f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"' in challenge
    assert 'scope="mcp:tools"' in challenge


def test_a_token_of_the_issuer_for_this_server_is_taken_and_never_reaches_the_tool(setup: Setup) -> None:
    token = setup.token()
    listed = setup.post(token, "tools/list").json()["result"]["tools"]
    assert sorted(tool["name"] for tool in listed) == ["deploy", "echo", "linger"]  # not restart
    called = setup.post(token, "tools/call", {"name": "deploy", "arguments": {}}).json()["result"]
    assert not called.get("isError"), called
    seen = called["content"][0]["text"]
    assert token not in seen and token.split(".")[2] not in seen  # not in its environment or input
    records = [r for r in setup.server.audit_records() if r.get("tool") == "deploy"]
    assert records[-1]["subject"] == "tester" and records[-1]["client_id"] == "tester"
    assert records[-1]["issuer"] == setup.issuer.issuer


def _forged(setup: Setup, kind: str) -> str:
    issuer, resource = setup.issuer, setup.resource
    if kind == "expired":
        return issuer.sign(issuer.claims(resource, iat=1_600_000_000, exp=1_600_000_600))
    if kind == "not yet valid":
        return issuer.sign(issuer.claims(resource, nbf=4_000_000_000))
    if kind == "no expiry":
        return issuer.sign(issuer.claims(resource, exp=None))
    if kind == "wrong audience (a real token for another resource)":
        return issuer.token("mcp:tools tools:deploy", "http://127.0.0.1:9/mcp")
    if kind == "no audience":
        return issuer.sign(issuer.claims(resource, aud=None))
    if kind == "wrong issuer":
        return issuer.sign(issuer.claims(resource, iss="http://127.0.0.1:1"))
    if kind == "unsigned (alg none)":
        return jwt.encode(
            issuer.claims(resource), None, algorithm="none", headers={"kid": issuer.keys[0]["kid"]}
        )
    if kind == "tampered":
        header, _, signature = setup.token("mcp:tools").split(".")
        more = issuer.claims(resource, scope="mcp:tools tools:deploy tools:admin")
        payload = base64.urlsafe_b64encode(json.dumps(more).encode()).rstrip(b"=").decode()
        return f"{header}.{payload}.{signature}"
    if kind == "HMAC keyed with the issuer's public key":  # the algorithm-confusion attack
        public = jwt.algorithms.ECAlgorithm.from_jwk(json.dumps(issuer.keys[0])).public_key()  # type: ignore[union-attr]
        pem = public.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
        header = {"alg": "HS256", "typ": "at+jwt", "kid": issuer.keys[0]["kid"]}
        signed = f"{_part(header)}.{_part(issuer.claims(resource))}"
        mac = hmac.new(pem, signed.encode(), hashlib.sha256).digest()
        return f"{signed}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"
    if kind == "signed by a key not the issuer's":
        from tests.auth.authorization_server import new_key

        stranger = new_key(issuer.keys[0]["kid"])
        private = jwt.algorithms.ECAlgorithm.from_jwk(json.dumps(stranger))
        return jwt.encode(
            issuer.claims(resource), private, algorithm="ES256", headers={"kid": stranger["kid"]}
        )  # type: ignore[arg-type]
    if kind == "a key id made to break the challenge header":
        return issuer.sign(issuer.claims(resource), kid='x"\r\nSet-Cookie: a=b\\é')
    if kind == "not a JWT":
        return "opaque-token-of-nobody"
    raise AssertionError(kind)


def _part(value: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


FORGERIES = [
    "expired",
    "not yet valid",
    "no expiry",
    "wrong audience (a real token for another resource)",
    "no audience",
    "wrong issuer",
    "unsigned (alg none)",
    "tampered",
    "HMAC keyed with the issuer's public key",
    "signed by a key not the issuer's",
    "a key id made to break the challenge header",
    "not a JWT",
]


def test_tokens_that_are_not_good_are_refused_with_a_challenge(setup: Setup) -> None:
    assert setup.post(setup.token(), "tools/list").status_code == 200  # the keys are known
    for kind in FORGERIES:
        token = _forged(setup, kind)
        for method, params in (
            ("tools/list", {}),
            ("tools/call", {"name": "echo", "arguments": {"word": "x"}}),
        ):
            refused = setup.post(token, method, params)
            assert refused.status_code == 401, (kind, refused.text)
            assert 'error="invalid_token"' in refused.headers["www-authenticate"], kind
            assert "set-cookie" not in refused.headers
    denials = [r for r in setup.server.audit_records() if r.get("status") == 401]
    assert any("not issued for this server" in str(r.get("error")) for r in denials)  # audited (budgeted)
    assert not [r for r in setup.server.audit_records() if r.get("tool") == "echo"]  # nothing ran


def test_a_token_without_a_tools_scope_sees_and_calls_only_what_it_may(setup: Setup) -> None:
    narrow = setup.token("mcp:tools")
    listed = setup.post(narrow, "tools/list").json()["result"]["tools"]
    assert sorted(tool["name"] for tool in listed) == ["echo", "linger"]
    refused = setup.post(narrow, "tools/call", {"name": "deploy", "arguments": {}})
    assert refused.status_code == 403
    challenge = refused.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge and 'scope="mcp:tools tools:deploy"' in challenge
    refused = setup.post(narrow, "tools/call", {"name": "restart", "arguments": {}})  # by its tag
    assert refused.status_code == 403 and "tools:admin" in refused.headers["www-authenticate"]
    answered = setup.post(narrow, "tools/call", {"name": "echo", "arguments": {"word": "hi"}}).json()
    assert answered["result"]["content"][0]["text"] == "hi"
    # Without the scope every request needs: nothing at all.
    refused = setup.post(setup.token("tools:deploy"), "tools/list")
    assert refused.status_code == 403 and 'scope="mcp:tools"' in refused.headers["www-authenticate"]


def test_keys_rotated_by_the_issuer_are_fetched_again_and_withdrawn_ones_refused(setup: Setup) -> None:
    before = setup.token()
    assert setup.post(before, "tools/list").status_code == 200
    setup.issuer.rotate()  # a new key; the old one is gone from the JWKS
    after = setup.token()
    assert jwt.get_unverified_header(after)["kid"] != jwt.get_unverified_header(before)["kid"]
    assert setup.post(after, "tools/list").status_code == 200
    assert setup.post(before, "tools/list").status_code == 401


def test_one_principals_task_is_not_anothers(setup: Setup) -> None:
    url = setup.server.mcp_url
    mine = functools.partial(http_request, url, setup.token("mcp:tools"))
    theirs = functools.partial(http_request, url, setup.token("mcp:tools", client="other"))
    task_id = mine("tools/call", {"name": "linger", "arguments": {}})["taskId"]
    for method in ("tasks/get", "tasks/cancel"):
        with pytest.raises(RpcError) as hidden:
            theirs(method, {"taskId": task_id})
        assert hidden.value.code == -32602, method
    # A new token of the same principal (a refresh) still reaches it.
    again = functools.partial(http_request, url, setup.token("mcp:tools"))
    assert again("tasks/get", {"taskId": task_id})["status"] == "working"
    again("tasks/cancel", {"taskId": task_id})
    assert wait_for(again, task_id, "cancelled")["status"] == "cancelled"
    with sqlite3.connect(setup.server.state_dir / "tasks.sqlite3") as db:  # whose it is, readable
        (owner,) = db.execute("SELECT principal FROM tasks WHERE task_id = ?", (task_id,)).fetchone()
    assert json.loads(owner.removeprefix("oauth:")) == {
        "client": "tester",
        "issuer": setup.issuer.issuer,
        "subject": "tester",
    }


class MemoryStorage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def test_the_sdk_client_signs_in_consents_and_calls_tools(setup: Setup) -> None:
    redirect_uri = "http://127.0.0.1:1/callback"  # never opened: the "browser" stops there
    person = DevInteraction(redirect_uri)

    async def callback() -> AuthorizationCodeResult:
        code, state, iss = person.callbacks.pop()
        return AuthorizationCodeResult(code=code, state=state, iss=iss)

    async def run() -> tuple[list[str], str, Any]:
        provider = OAuthClientProvider(
            server_url=setup.server.mcp_url,
            client_metadata=OAuthClientMetadata(
                client_name="toolkiln test",
                redirect_uris=[AnyUrl(redirect_uri)],
                grant_types=["authorization_code", "refresh_token"],
                response_types=["code"],
                token_endpoint_auth_method="none",
            ),
            storage=MemoryStorage(),
            redirect_handler=person.open,
            callback_handler=callback,
        )
        try:
            async with (
                httpx2.AsyncClient(auth=provider, timeout=60) as http,
                Client(streamable_http_client(setup.server.mcp_url, http_client=http)) as client,
            ):
                listed = sorted(tool.name for tool in (await client.list_tools()).tools)
                echoed = await client.call_tool("echo", {"word": "signed in"})
                text = echoed.content[0].text  # type: ignore[union-attr]
                # deploy needs a scope the first consent did not give: the client steps up.
                stepped = await client.call_tool("deploy", {})
                return listed, text, stepped
        finally:
            await person.close()

    listed, text, stepped = anyio.run(run)
    assert person.pages[:2] == ["login", "consent"]
    assert listed == ["echo", "linger"]  # the first token: mcp:tools only
    assert text == "signed in"
    assert not stepped.is_error
    records = [r for r in setup.server.audit_records() if r.get("tool") == "echo"]
    assert records[-1]["subject"] == "alice"


def test_a_session_begun_with_one_principals_token_is_not_anothers(setup: Setup) -> None:
    url = setup.server.mcp_url
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    client = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": client}
    mine = {**headers, "Authorization": f"Bearer {setup.token('mcp:tools')}"}
    begun = httpx2.post(url, json=hello, headers=mine, timeout=30)
    assert begun.status_code == 200, begun.text
    session = {"Mcp-Session-Id": begun.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    theirs = {**headers, **session, "Authorization": f"Bearer {setup.token('mcp:tools', client='other')}"}
    assert httpx2.post(url, json=listing, headers=theirs, timeout=30).status_code == 404
    assert httpx2.post(url, json=listing, headers={**mine, **session}, timeout=30).status_code == 200
    assert "OAuth: /mcp and /rpc take access tokens of" in setup.server.stderr()  # the banner says so
