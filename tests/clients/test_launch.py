"""Where the server is and how to reach it, read the way `toolkiln serve` writes it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import child_env
from toolkiln.clients.launch import DEFAULT_URL, launcher, locate_http_server, serve_command
from toolkiln.errors import ConfigError
from toolkiln.state_dir import default_state_dir


@pytest.fixture
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "toolkiln"


def test_the_state_folder_is_the_one_serve_uses(state_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_state_dir() == state_dir
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(state_dir.parent / "home"))
    assert default_state_dir() == state_dir.parent / "home" / ".config" / "toolkiln"


def test_a_token_made_here_is_the_one_serve_reads(state_dir: Path) -> None:
    from toolkiln.http_token import read_or_create_token

    target = locate_http_server()
    assert (target.url, target.token_file, target.created_token) == (DEFAULT_URL, state_dir / "token", True)
    assert os.stat(state_dir / "token").st_mode & 0o777 == 0o600
    assert os.stat(state_dir).st_mode & 0o777 == 0o700
    assert read_or_create_token(state_dir / "token") == (target.token, False)
    again = locate_http_server()
    assert (again.token, again.created_token) == (target.token, False)


def test_a_token_serve_made_is_read_here(state_dir: Path, tmp_path: Path) -> None:
    from toolkiln.http_token import read_or_create_token

    token, _ = read_or_create_token(tmp_path / "elsewhere" / "token")
    assert locate_http_server(token_file=tmp_path / "elsewhere" / "token").token == token
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(ConfigError, match="the token file is empty"):
        locate_http_server(token_file=tmp_path / "empty")


def test_the_running_servers_url_and_token_file_are_used(state_dir: Path, tmp_path: Path) -> None:
    state_dir.mkdir(parents=True)
    token_file = tmp_path / "its-token"
    token_file.write_text("abc\n")
    entry = {"url": "http://127.0.0.1:9999/mcp", "pid": os.getpid(), "token_file": str(token_file)}
    (state_dir / "server.json").write_text(json.dumps(entry))
    target = locate_http_server()
    assert (target.url, target.token, target.token_file) == ("http://127.0.0.1:9999/mcp", "abc", token_file)
    assert locate_http_server(url="http://example.test/mcp").url == "http://example.test/mcp"
    (state_dir / "server.json").write_text(json.dumps({**entry, "token_file": None}))
    assert locate_http_server().token is None, "a server without auth needs no header"


def test_a_stale_discovery_file_is_ignored(state_dir: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    state_dir.mkdir(parents=True)
    entry = {"url": "http://127.0.0.1:9999/mcp", "pid": int(dead.stdout), "token_file": None}
    (state_dir / "server.json").write_text(json.dumps(entry))
    target = locate_http_server()
    assert (target.url, target.token_file) == (DEFAULT_URL, state_dir / "token")


def test_the_serve_command_is_absolute_and_runs(tmp_path: Path) -> None:
    command = serve_command(Path("tools"), Path("config"))
    assert command[: len(launcher())] == launcher()
    assert Path(command[0]).is_absolute()
    assert command[-4:] == [
        "--tools-dir",
        str(Path("tools").resolve()),
        "--config-dir",
        str(Path("config").resolve()),
    ]
    version = subprocess.run([*launcher(), "--version"], capture_output=True, text=True, env=child_env())
    assert version.returncode == 0 and version.stdout.startswith("toolkiln, version")


def test_every_name_of_the_clients_package_loads_from_its_module() -> None:
    """The package loads each name's module on first use: a name sent to the wrong one
    would fail only where it is first asked for."""
    import toolkiln.clients

    for name in toolkiln.clients.__all__:
        assert getattr(toolkiln.clients, name) is not None, name
