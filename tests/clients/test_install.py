"""Merging a server entry into a client's config file: idempotent, backed up, polite."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from toolkiln.clients import install_server
from toolkiln.errors import ConfigError

ENTRY = {"command": "/opt/toolkiln/bin/toolkiln", "args": ["serve", "--tools-dir", "/srv/tools"]}
THEIRS = {
    "theme": "dark",
    "mcpServers": {"github": {"command": "npx", "args": ["-y", "@github/mcp"]}, "zeta": {"url": "http://z"}},
    "numbers": [3, 1, 2],
}


def test_a_new_file_gets_just_this_server(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "mcp.json"
    result = install_server(path, "mcpServers", "toolkiln", ENTRY)
    assert (result.changed, result.created, result.replaced, result.backup) == (True, True, False, None)
    assert json.loads(path.read_text()) == {"mcpServers": {"toolkiln": ENTRY}}


def test_merging_keeps_everything_else_in_its_order_and_backs_up_first(tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    original = json.dumps(THEIRS, indent=4)
    path.write_text(original)
    path.chmod(0o640)
    result = install_server(path, "mcpServers", "toolkiln", ENTRY)
    assert (result.changed, result.created, result.replaced) == (True, False, False)
    data = json.loads(path.read_text())
    assert list(data) == ["theme", "mcpServers", "numbers"]
    assert list(data["mcpServers"]) == ["github", "zeta", "toolkiln"]
    assert data == {**THEIRS, "mcpServers": {**THEIRS["mcpServers"], "toolkiln": ENTRY}}
    assert result.backup is not None and result.backup.parent == tmp_path
    assert result.backup.name.startswith("claude_desktop_config.json.") and result.backup.suffix == ".bak"
    assert result.backup.read_text() == original
    assert os.stat(path).st_mode & 0o777 == 0o640


def test_installing_twice_changes_nothing_the_second_time(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(THEIRS))
    install_server(path, "mcpServers", "toolkiln", ENTRY)
    written = path.read_bytes()
    files = sorted(tmp_path.iterdir())
    again = install_server(path, "mcpServers", "toolkiln", ENTRY)
    assert (again.changed, again.backup) == (False, None)
    assert path.read_bytes() == written
    assert sorted(tmp_path.iterdir()) == files, "no second backup"


def test_a_different_entry_of_the_same_name_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"servers": {"toolkiln": {"command": "old"}, "other": {"command": "x"}}}))
    result = install_server(path, "servers", "toolkiln", ENTRY)
    assert (result.changed, result.replaced) == (True, True)
    assert json.loads(path.read_text()) == {"servers": {"toolkiln": ENTRY, "other": {"command": "x"}}}
    assert result.backup is not None and "old" in result.backup.read_text()
    again = install_server(path, "servers", "toolkiln", {**ENTRY, "args": []})
    assert again.backup is not None and again.backup != result.backup, "an earlier backup is never replaced"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"servers": {}, // mine\n,}', r":2:1: not valid JSON \(expected a property name in double quotes"),
        ("[1, 2]", "holds a JSON list, not an object"),
        ('{"mcpServers": ["a"]}', "'mcpServers' is not a JSON object"),
    ],
)
def test_a_file_it_cannot_merge_into_is_left_alone(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        install_server(path, "mcpServers", "toolkiln", ENTRY)
    assert path.read_text() == text
    assert list(tmp_path.iterdir()) == [path]


def test_an_empty_file_counts_as_an_empty_config(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text("\n")
    result = install_server(path, "mcpServers", "toolkiln", ENTRY)
    assert result.changed and json.loads(path.read_text()) == {"mcpServers": {"toolkiln": ENTRY}}


def test_a_symlinked_config_stays_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "mcp.json"
    target.parent.mkdir()
    target.write_text(json.dumps(THEIRS))
    link = tmp_path / "mcp.json"
    link.symlink_to(target)
    install_server(link, "mcpServers", "toolkiln", ENTRY)
    assert link.is_symlink()
    assert json.loads(target.read_text())["mcpServers"]["toolkiln"] == ENTRY


def test_a_new_file_that_holds_a_token_is_private(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    install_server(
        path, "mcpServers", "toolkiln", {"url": "u", "headers": {"Authorization": "Bearer t"}}, private=True
    )
    assert os.stat(path).st_mode & 0o777 == 0o600


TOKEN_ENTRY = {"url": "http://127.0.0.1:8765/mcp", "headers": {"Authorization": "Bearer secret"}}


def test_an_existing_file_that_gains_a_token_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(THEIRS))
    path.chmod(0o644)
    result = install_server(path, "mcpServers", "toolkiln", TOKEN_ENTRY, private=True)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert (result.made_private, result.exposed) == (0o644, None)


def test_the_backup_of_a_file_that_holds_a_token_is_private(tmp_path: Path) -> None:
    """The previous file held an older token (or another server's key): so does its copy."""
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"toolkiln": {**TOKEN_ENTRY, "url": "http://old"}}}))
    path.chmod(0o644)
    result = install_server(path, "mcpServers", "toolkiln", TOKEN_ENTRY, private=True)
    assert result.backup is not None and "http://old" in result.backup.read_text()
    assert os.stat(result.backup).st_mode & 0o777 == 0o600


def test_a_backup_is_private_even_without_a_token(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"db": {"command": "x", "env": {"API_KEY": "k"}}}}))
    path.chmod(0o664)
    result = install_server(path, "mcpServers", "toolkiln", ENTRY)
    assert result.backup is not None and os.stat(result.backup).st_mode & 0o777 == 0o600
    assert os.stat(path).st_mode & 0o777 == 0o664, "a file without a token keeps its mode"


def test_a_readable_file_that_already_holds_the_entry_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"toolkiln": TOKEN_ENTRY}}))
    path.chmod(0o644)
    before = path.read_bytes()
    result = install_server(path, "mcpServers", "toolkiln", TOKEN_ENTRY, private=True)
    assert (result.changed, result.made_private, result.exposed) == (False, 0o644, None)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert path.read_bytes() == before and list(tmp_path.iterdir()) == [path]


def test_a_new_file_with_a_token_is_never_readable_by_others(tmp_path: Path) -> None:
    """Created 0600 from the start (then renamed into place): even a umask of 0 gives no window."""
    path = tmp_path / "new" / "mcp.json"
    previous = os.umask(0)
    try:
        install_server(path, "mcpServers", "toolkiln", TOKEN_ENTRY, private=True)
    finally:
        os.umask(previous)
    assert os.stat(path).st_mode & 0o777 == 0o600
