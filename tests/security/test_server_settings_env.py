"""The server's own settings never reach a tool (issue 30, finding 4).

Every `TOOLKILN_*` variable passed into tool calls, confined ones included, so a tool
that printed its environment handed the client `TOOLKILN_STATE_URL` (with the Redis
password) and `TOOLKILN_STATE_SECRET_FILE`. A tool now gets only the variables of those
families that toolkiln sets for it; a confined one does not see the secret file either.
Real HTTP server, real Redis with a password, real processes.
"""

from __future__ import annotations

import json
import secrets
import shutil
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.serve.http_server import http_server
from tests.serve.redis_server import redis_server
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.process import confinement_problem

PRINT_ENV = """\
#!/bin/bash
# Tool: printenv
# Description: Print the environment, and what the secret file holds
env
cat "$SECRET_PATH" 2>/dev/null
"""


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")
@pytest.mark.parametrize(
    "mode",
    [
        "off",
        pytest.param(
            "required", marks=pytest.mark.skipif(confinement_problem() is not None, reason="no bwrap")
        ),
    ],
)
def test_a_tool_never_gets_the_servers_own_settings(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path, mode: str
) -> None:
    make_tool("printenv/run.sh", PRINT_ENV)
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "server.json").write_text(
        json.dumps({"confinement": {"mode": mode, "filesystem": "open", "pass_env": ["SECRET_PATH"]}})
    )
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    shared = secrets.token_hex(32)
    secret_file = tmp_path / "shared-secret"
    secret_file.write_text(shared + "\n")
    secret_file.chmod(0o600)
    password = "redis-" + secrets.token_hex(8)
    with redis_server(tmp_path / "redis", password) as redis:
        settings = {
            "TOOLKILN_STATE_URL": redis.url,
            "TOOLKILN_STATE_SECRET_FILE": str(secret_file),
            "TOOLKILN_TOKEN": "a-token-in-the-environment",
            "TOOLKILN_ANY_OTHER_SETTING": "server-only",
            "MCPD_SERVER_SETTING": "server-only",
            "SECRET_PATH": str(secret_file),
        }
        with http_server(config_dir, tmp_path / "state", **settings) as server:
            answer = server.rpc("tools/call", {"name": "printenv", "arguments": {}}).json()
    text = answer["result"]["content"][0]["text"]
    names = {line.split("=", 1)[0] for line in text.splitlines() if "=" in line}
    assert password not in text and "server-only" not in text and "a-token-in" not in text
    assert names.isdisjoint(settings.keys() - {"SECRET_PATH"})
    from toolkiln.runner.environment import SERVER_PREFIXES, TOOL_VARIABLES

    assert {name for name in names if name.startswith(SERVER_PREFIXES)} <= TOOL_VARIABLES
    assert {"TOOLKILN_TOOL_NAME", "TOOLKILN_TOOLS_DIR", "MCPD_CONFIG_SERVER_PORT"} <= names
    if mode == "required":  # confined: the replicas' secret file is hidden too
        assert shared not in text
