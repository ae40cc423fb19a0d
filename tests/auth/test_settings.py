"""config/server.json `oauth` and a tool's `scopes`: what build accepts, and the errors
that name the field (model/oauth.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeTool
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.errors import BuildError

TOOL = "#!/bin/sh\n# Tool: deploy\n# Description: Deploys\necho ok\n"
GOOD = {"issuer": "https://login.example.com", "resource": "https://mcp.example.com/mcp"}


def _build(make_tool: MakeTool, tools_dir: Path, config_dir: Path, oauth: dict[str, Any], **tool: Any) -> str:
    make_tool("deploy.sh", TOOL)
    assert not discover_tools(tools_dir, config_dir).errors
    path = config_dir / "tools" / "deploy.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **tool}))
    (config_dir / "server.json").write_text(json.dumps({"oauth": oauth}))
    try:
        build_catalog(config_dir, tools_dir)
    except BuildError as error:
        return str(error)
    return ""


@pytest.mark.parametrize(
    ("oauth", "named", "says"),
    [
        ({**GOOD, "algorithms": ["HS256"]}, "oauth.algorithms", "RS256"),
        ({**GOOD, "algorithms": ["none"]}, "oauth.algorithms", "RS256"),
        ({**GOOD, "issuer": "http://login.example.com"}, "oauth.issuer", "https://"),
        ({**GOOD, "resource": "https://mcp.example.com/mcp#frag"}, "oauth.resource", "fragment"),
        ({"issuer": GOOD["issuer"]}, "oauth.resource", ""),
        ({**GOOD, "required_scopes": ["two words"]}, "oauth.required_scopes", "scope"),
        ({**GOOD, "jwks": "x"}, "oauth.jwks", ""),
    ],
)
def test_a_wrong_oauth_setting_is_refused_naming_its_field(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, oauth: dict[str, Any], named: str, says: str
) -> None:
    error = _build(make_tool, tools_dir, config_dir, oauth)
    assert "server.json" in error and named in error and says in error, error


def test_a_tools_scope_must_be_one_word(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    error = _build(make_tool, tools_dir, config_dir, GOOD, scopes=['tools "deploy"'])
    assert "deploy.json" in error and "scopes" in error and "RFC 6749" in error, error


def test_http_is_taken_for_a_loopback_issuer_only(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    local = {"issuer": "http://127.0.0.1:9000", "resource": "http://localhost:8765/mcp"}
    assert _build(make_tool, tools_dir, config_dir, local) == ""
    catalog = json.loads((config_dir / "tools.json").read_text())
    assert catalog["oauth"]["issuer"] == "http://127.0.0.1:9000"
