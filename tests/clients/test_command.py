"""`toolkiln config CLIENT`: the snippet each client needs, and --install into its file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from click.testing import CliRunner, Result
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import MakeTool, child_env
from tests.serve.http_server import http_server
from toolkiln.cli import cli
from toolkiln.clients import launcher

SERVERS_KEY = {
    "claude-desktop": "mcpServers",
    "claude-code": "mcpServers",
    "cursor": "mcpServers",
    "vscode": "servers",
    "windsurf": "mcpServers",
    "gemini": "mcpServers",
    "json": "mcpServers",
}
GREET = """\
#!/bin/bash
if [ "$1" = --help ]; then echo '{"description": "Hi"}'; echo '{}' >&2; exit 0; fi
echo hi
"""
DEFAULT_FILES = {
    "claude-desktop": ".config/Claude/claude_desktop_config.json",
    "claude-code": ".claude.json",
    "cursor": ".cursor/mcp.json",
    "windsurf": ".codeium/windsurf/mcp_config.json",
    "gemini": ".gemini/settings.json",
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME of the test's own, and the current folder (where .vscode/ goes) beside it."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    return home


def config(tools_dir: Path, config_dir: Path, *args: str) -> Result:
    folders = ["--tools-dir", str(tools_dir), "--config-dir", str(config_dir)]
    return CliRunner().invoke(cli, ["config", *args, *folders], catch_exceptions=False)


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize("client", list(SERVERS_KEY))
def test_each_client_gets_the_stdio_command_with_absolute_paths(
    client: str, tools_dir: Path, config_dir: Path
) -> None:
    result = config(tools_dir, config_dir, client)
    assert result.exit_code == 0, result.output
    snippet = json.loads(result.stdout)
    entry = snippet[SERVERS_KEY[client]]["toolkiln"]
    assert [entry["command"], *entry["args"]] == [
        *launcher(),
        "serve",
        "--tools-dir",
        str(tools_dir.resolve()),
        "--config-dir",
        str(config_dir.resolve()),
    ]
    assert Path(entry["command"]).is_absolute()
    assert entry.get("type", "stdio") == "stdio"
    assert f" install {client} --tools-dir " in result.stderr


@pytest.mark.parametrize(
    ("client", "expected"),
    [
        ("claude-code", {"type": "http", "url": "URL", "headers": {"Authorization": "Bearer TOKEN"}}),
        ("cursor", {"url": "URL", "headers": {"Authorization": "Bearer TOKEN"}}),
        ("vscode", {"type": "http", "url": "URL", "headers": {"Authorization": "Bearer TOKEN"}}),
        ("windsurf", {"serverUrl": "URL", "headers": {"Authorization": "Bearer TOKEN"}}),
        ("gemini", {"httpUrl": "URL", "headers": {"Authorization": "Bearer TOKEN"}}),
        ("json", {"type": "http", "url": "URL", "headers": {"Authorization": "Bearer TOKEN"}}),
        (
            "claude-desktop",
            {
                "command": "npx",
                "args": ["-y", "mcp-remote", "URL", "--header", "Authorization:${AUTH_HEADER}"],
                "env": {"AUTH_HEADER": "Bearer TOKEN"},
            },
        ),
    ],
)
def test_each_client_gets_the_url_and_the_bearer_token(
    client: str, expected: dict[str, Any], home: Path, tools_dir: Path, config_dir: Path
) -> None:
    result = config(tools_dir, config_dir, client, "--http")
    assert result.exit_code == 0, result.output
    token = (home / ".config" / "toolkiln" / "token").read_text().strip()
    assert f"info: made a new bearer token in {home / '.config' / 'toolkiln' / 'token'}" in result.stderr
    text = result.stdout.replace("http://127.0.0.1:8765/mcp", "URL").replace(token, "TOKEN")
    assert json.loads(text) == {SERVERS_KEY[client]: {"toolkiln": expected}}


def test_claude_desktop_over_http_beyond_this_machine_allows_http(
    home: Path, tools_dir: Path, config_dir: Path
) -> None:
    result = config(tools_dir, config_dir, "claude-desktop", "--http", "--url", "http://10.0.0.5:8765/mcp")
    args = json.loads(result.stdout)["mcpServers"]["toolkiln"]["args"]
    assert args[2] == "http://10.0.0.5:8765/mcp" and args[-1] == "--allow-http"


@pytest.mark.parametrize("client", list(DEFAULT_FILES))
def test_install_writes_the_clients_own_file_under_home(
    client: str, home: Path, tools_dir: Path, config_dir: Path
) -> None:
    path = home / DEFAULT_FILES[client]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": {"other": {"command": "other-server"}}, "keep": True}))
    installed = config(tools_dir, config_dir, client, "--install")
    assert installed.exit_code == 0, installed.output
    assert f"added the server 'toolkiln' in {path}" in installed.stdout
    data = json.loads(path.read_text())
    assert data["mcpServers"]["other"] == {"command": "other-server"} and data["keep"] is True
    assert "serve" in data["mcpServers"]["toolkiln"]["args"]
    [backup] = path.parent.glob(f"{path.name}.*.bak")
    assert "toolkiln" not in json.loads(backup.read_text())["mcpServers"]

    again = config(tools_dir, config_dir, client, "--install")
    assert again.exit_code == 0
    assert "nothing changed" in again.stdout
    assert len(list(path.parent.glob(f"{path.name}.*.bak"))) == 1


def test_vscode_installs_into_the_current_folder(home: Path, tools_dir: Path, config_dir: Path) -> None:
    result = config(tools_dir, config_dir, "vscode", "--install", "--name", "my-tools")
    assert result.exit_code == 0, result.output
    path = home.parent / ".vscode" / "mcp.json"
    entry = json.loads(path.read_text())["servers"]["my-tools"]
    assert entry["type"] == "stdio" and entry["args"][-1] == str(config_dir.resolve())


def test_install_over_http_keeps_the_file_private(home: Path, tools_dir: Path, config_dir: Path) -> None:
    target = home.parent / "project" / ".mcp.json"
    result = config(tools_dir, config_dir, "claude-code", "--http", "--install", "--config-file", str(target))
    assert result.exit_code == 0, result.output
    assert f"{target} now holds the bearer token: keep it private" in result.stdout
    assert target.stat().st_mode & 0o777 == 0o600


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["json", "--install"], 1, "json has no config file of its own: pass --config-file PATH"),
        (["cursor", "--url", "http://x/mcp"], 2, "--url and --token-file go with --http"),
        (["cursor", "--name", "my tools"], 1, "server name 'my tools'"),
        (["emacs"], 2, "Invalid value for 'CLIENT'"),
    ],
)
def test_mistakes(tools_dir: Path, config_dir: Path, args: list[str], code: int, message: str) -> None:
    result = config(tools_dir, config_dir, *args)
    assert result.exit_code == code
    assert message in result.output


@pytest.mark.usefixtures("home")
def test_claude_code_also_gets_its_own_command(tools_dir: Path, config_dir: Path) -> None:
    result = config(tools_dir, config_dir, "claude-code")
    assert 'claude mcp add-json --scope user toolkiln \'{"type": "stdio"' in result.stderr


def test_an_installed_http_entry_connects_to_the_running_server(
    tmp_path: Path, make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    """Serve for real, install the entry as a real process, and connect with what it holds."""
    make_tool("greet.sh", GREET)
    folders = ["--tools-dir", str(tools_dir), "--config-dir", str(config_dir)]
    for stage in ("discover", "build"):
        assert CliRunner().invoke(cli, [stage, *folders]).exit_code == 0
    xdg = tmp_path / "xdg"
    client_file = tmp_path / "project" / ".mcp.json"
    with http_server(config_dir, xdg / "toolkiln", XDG_CONFIG_HOME=str(xdg)) as server:
        install = [sys.executable, "-m", "toolkiln", "config", "claude-code", "--http", "--install"]
        done = subprocess.run(
            [*install, "--config-file", str(client_file)],
            capture_output=True,
            text=True,
            env={**child_env(), "XDG_CONFIG_HOME": str(xdg)},
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        entry = json.loads(client_file.read_text())["mcpServers"]["toolkiln"]
        assert entry["url"] == server.mcp_url
        assert entry["headers"] == server.auth()

        async def list_tools() -> list[str]:
            async with (
                httpx2.AsyncClient(headers=entry["headers"], timeout=60) as http,
                Client(streamable_http_client(entry["url"], http_client=http), mode="legacy") as client,
            ):
                return [tool.name for tool in (await client.list_tools()).tools]

        assert anyio.run(list_tools) == ["greet"]
