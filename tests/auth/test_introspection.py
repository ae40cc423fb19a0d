"""Opaque access tokens checked by asking the issuer (RFC 7662), against oidc-provider's
own introspection endpoint."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.auth.authorization_server import AuthorizationServer, authorization_server, free_port
from tests.auth.test_oauth import write_project
from tests.conftest import MakeTool
from tests.serve.http_server import RunningServer, http_server

OTHER = "http://127.0.0.1:9/mcp"


@pytest.fixture
def served(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> Iterator[tuple[AuthorizationServer, RunningServer, str]]:
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    with authorization_server(tmp_path, [resource, OTHER], opaque=True) as issuer:
        oauth = {
            "issuer": issuer.issuer,
            "resource": resource,
            "required_scopes": ["mcp:tools"],
            "introspection": {
                "endpoint": f"{issuer.issuer}/token/introspection",
                "client_id": "toolkiln",
                "client_secret_env": "INTROSPECTION_SECRET",
            },
        }
        write_project(make_tool, tools_dir, config_dir, oauth)
        transport = ("--http", "--port", str(port))
        env = {"INTROSPECTION_SECRET": "toolkiln-secret"}
        with http_server(config_dir, tmp_path / "state", transport=transport, **env) as server:
            yield issuer, server, resource


def _list(server: RunningServer, token: str) -> httpx2.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    return httpx2.post(f"{server.base_url}/rpc", json=body, headers={"Authorization": f"Bearer {token}"})


def test_an_opaque_token_is_asked_about_and_one_for_another_resource_refused(
    served: tuple[AuthorizationServer, RunningServer, str],
) -> None:
    issuer, server, resource = served
    token = issuer.token("mcp:tools tools:deploy", resource)
    assert token.count(".") == 0  # opaque: only the issuer can say what it is
    answered = _list(server, token)
    assert answered.status_code == 200, answered.text
    names = sorted(tool["name"] for tool in answered.json()["result"]["tools"])
    assert names == ["deploy", "echo", "linger", "restart"]  # no tag_scopes here
    for refused in (issuer.token("mcp:tools", OTHER), "made-up-token"):
        response = _list(server, refused)
        assert response.status_code == 401, response.text
        assert 'error="invalid_token"' in response.headers["www-authenticate"]
    denials = [json.dumps(r) for r in server.audit_records() if r.get("status") == 401]
    assert any("not issued for this server" in d for d in denials)
    assert any("not active" in d for d in denials)
