"""`toolkiln install CLIENT [DIR]` and `config CLIENT [DIR]`: the short form, the
one-command entry (`serve DIR`), how the client starts toolkiln (--launcher), Codex's TOML
file, and a client file that gains a token."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner, Result
from mcp import Client, StdioServerParameters

from tests.conftest import MakeTool, child_env
from toolkiln.cli import cli
from toolkiln.clients import launcher

GREET = """\
#!/bin/bash
if [ "$1" = --help ]; then echo '{"description": "Hi"}'; echo '{}' >&2; exit 0; fi
echo hi
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    return home


@pytest.fixture
def scripts(tmp_path: Path) -> Path:
    folder = tmp_path / "my scripts"
    folder.mkdir()
    return folder


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.usefixtures("home")
def test_config_with_a_folder_writes_serve_dir_absolute_and_resolved(tmp_path: Path, scripts: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(scripts)
    result = run("config", "cursor", "link")  # relative to the current folder: tmp_path
    assert result.exit_code == 0, result.output
    entry = json.loads(result.stdout)["mcpServers"]["toolkiln"]
    assert [entry["command"], *entry["args"]] == [*launcher(), "serve", str(scripts.resolve())]
    assert " install cursor link\n" in result.stderr


def test_install_is_config_install(home: Path, scripts: Path) -> None:
    short = run("install", "gemini", str(scripts))
    assert short.exit_code == 0, short.output
    path = home / ".gemini" / "settings.json"
    assert f"added the server 'toolkiln' in {path}" in short.stdout
    assert "next: start a new Gemini CLI session; `/mcp` lists its servers and tools" in short.stdout
    written = path.read_bytes()
    long = run("config", "gemini", str(scripts), "--install")
    assert "already has the server 'toolkiln' as it should be; nothing changed" in long.stdout
    assert path.read_bytes() == written
    entry = json.loads(written)["mcpServers"]["toolkiln"]
    assert entry == {"command": launcher()[0], "args": [*launcher()[1:], "serve", str(scripts.resolve())]}


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["config", "cursor", "missing"], "missing: no such folder; give the folder of your scripts"),
        (["install", "cursor", "a-file"], "is a file"),
        (["config", "cursor", ".", "--http"], "DIR goes with the stdio form"),
        (["config", "cursor", ".", "--tools-dir", "t"], "give DIR or --tools-dir/--config-dir, not both"),
        (["install", "json", "."], "json has no config file of its own: pass --config-file PATH"),
        (["config", "cursor", "--launcher", "npx"], "Invalid value for '--launcher'"),
    ],
)
def test_folder_mistakes(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "a-file").write_text("x")
    result = run(*args)
    assert result.exit_code in (1, 2)
    assert message in result.output


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(("choice", "program"), [("uvx", "uvx"), ("pipx", "pipx")])
def test_launcher_uvx_or_pipx_starts_toolkiln_through_them(scripts: Path, choice: str, program: str) -> None:
    result = run("config", "claude-desktop", str(scripts), "--launcher", choice)
    assert result.exit_code == 0, result.output
    entry = json.loads(result.stdout)["mcpServers"]["toolkiln"]
    assert Path(entry["command"]).name == program
    assert entry["args"][-3:] == ["toolkiln", "serve", str(scripts.resolve())]
    if choice == "pipx":
        assert entry["args"][0] == "run"
    assert f"--launcher {choice}" in result.stderr


def test_codex_gets_toml_in_codex_home(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shown = run("config", "codex")
    assert shown.exit_code == 0, shown.output
    assert f"into {home / '.codex' / 'config.toml'}" in shown.stderr
    entry = tomllib.loads(shown.stdout)["mcp_servers"]["toolkiln"]
    assert entry["command"] == launcher()[0] and entry["startup_timeout_sec"] == 60
    codex_home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    (codex_home).mkdir()
    (codex_home / "config.toml").write_text('# mine\nmodel = "o3"\n')
    installed = run("install", "codex", "--http", "--url", "http://127.0.0.1:9/mcp")
    assert installed.exit_code == 0, installed.output
    text = (codex_home / "config.toml").read_text()
    token = (home / ".config" / "toolkiln" / "token").read_text().strip()
    assert text.startswith('# mine\nmodel = "o3"\n')
    assert tomllib.loads(text)["mcp_servers"]["toolkiln"] == {
        "url": "http://127.0.0.1:9/mcp",
        "http_headers": {"Authorization": f"Bearer {token}"},
    }


def test_a_readable_client_file_that_gains_the_token_is_made_private(home: Path) -> None:
    path = home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{"mcpServers": {}}')
    path.chmod(0o644)
    result = run("install", "cursor", "--http")
    assert result.exit_code == 0, result.output
    assert path.stat().st_mode & 0o777 == 0o600
    assert f"made {path} private (mode 600; it was 644): it holds the token" in result.stdout
    [backup] = path.parent.glob("mcp.json.*.bak")
    assert backup.stat().st_mode & 0o777 == 0o600


def test_a_broken_codex_file_is_named_with_its_line_and_left_alone(home: Path) -> None:
    path = home / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text('model = "o3"\n[mcp_servers.x\n')
    result = CliRunner().invoke(cli, ["install", "codex"])
    assert result.exit_code == 1
    assert f"toolkiln: error: {path}:2: not valid TOML" in result.output
    assert path.read_text() == 'model = "o3"\n[mcp_servers.x\n'
    assert list(path.parent.iterdir()) == [path]


def test_the_installed_codex_entry_starts_a_server_a_client_can_use(
    home: Path, make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    """The command and args Codex would read from its TOML file, spawned for real."""
    make_tool("greet.sh", GREET)
    folders = ["--tools-dir", str(tools_dir), "--config-dir", str(config_dir)]
    for stage in ("discover", "build"):
        assert run(stage, *folders).exit_code == 0
    assert run("install", "codex", *folders).exit_code == 0
    entry = tomllib.loads((home / ".codex" / "config.toml").read_text())["mcp_servers"]["toolkiln"]

    async def list_tools() -> list[str]:
        params = StdioServerParameters(command=entry["command"], args=entry["args"], env=child_env())
        async with Client(params, mode="legacy") as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    assert anyio.run(list_tools) == ["greet"]
