"""Merging into a TOML client config (Codex): the user's comments, layout and other tables
kept; idempotent and backed up like the JSON clients; a broken file named, and left alone."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from toolkiln.clients import install_server
from toolkiln.clients.formats import CLIENTS, snippet
from toolkiln.errors import ConfigError

ENTRY = {
    "command": "/opt/toolkiln/bin/toolkiln",
    "args": ["serve", "/srv/scripts"],
    "startup_timeout_sec": 60,
}
THEIRS = """\
# my Codex settings
model = "o3"  # the one I like

[mcp_servers.github]
command = "npx"   # keep this comment
args = ["-y", "@github/mcp"]

[mcp_servers.github.env]
GITHUB_TOKEN = "ghp_x"

[profiles.fast]
model = "mini"
"""


def install(path: Path, entry: dict[str, object] = ENTRY, **options: bool) -> object:
    return install_server(path, "mcp_servers", "toolkiln", entry, syntax="toml", **options)


def test_merging_keeps_their_comments_layout_and_tables(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(THEIRS)
    install(path)
    text = path.read_text()
    for line in THEIRS.splitlines():
        assert line in text, f"lost: {line!r}"
    data = tomllib.loads(text)
    assert data["mcp_servers"]["toolkiln"] == ENTRY
    assert list(data["mcp_servers"]) == ["github", "toolkiln"]
    assert data["profiles"] == {"fast": {"model": "mini"}} and data["model"] == "o3"
    assert "[mcp_servers.toolkiln]\n" in text and "\n[mcp_servers]\n" not in text
    [backup] = tmp_path.glob("config.toml.*.bak")
    assert backup.read_text() == THEIRS


def test_installing_twice_changes_nothing_the_second_time(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(THEIRS)
    install(path)
    written, files = path.read_bytes(), sorted(tmp_path.iterdir())
    again = install_server(path, "mcp_servers", "toolkiln", ENTRY, syntax="toml")
    assert (again.changed, again.backup) == (False, None)
    assert path.read_bytes() == written and sorted(tmp_path.iterdir()) == files


def test_an_entry_of_that_name_is_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[mcp_servers.toolkiln]\ncommand = "old"\n\n[profiles.x]\nmodel = "m"\n\n'
        '[mcp_servers.toolkiln.env]\nOLD = "1"\n'
    )
    result = install_server(path, "mcp_servers", "toolkiln", ENTRY, syntax="toml")
    assert result.replaced
    data = tomllib.loads(path.read_text())
    assert data["mcp_servers"] == {"toolkiln": ENTRY}, "no leftover of the old entry (its env table)"
    assert data["profiles"] == {"x": {"model": "m"}}


def test_a_new_file_with_a_token_is_private_and_its_headers_inline(tmp_path: Path) -> None:
    path = tmp_path / "codex" / "config.toml"
    entry = {"url": "http://127.0.0.1:8765/mcp", "http_headers": {"Authorization": "Bearer t"}}
    install(path, entry, private=True)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert path.read_text() == (
        '[mcp_servers.toolkiln]\nurl = "http://127.0.0.1:8765/mcp"\n'
        'http_headers = {Authorization = "Bearer t"}\n'
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('model = "o3"\n[mcp_servers.a]\ncommand = \n', ":3: not valid TOML"),
        ("[profiles]\n[profiles]\n", ":2: not valid TOML"),
        ("mcp_servers = 3\n", "'mcp_servers' is not a table; fix it by hand first"),
    ],
)
def test_a_file_it_cannot_merge_into_is_left_alone(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as raised:
        install(path)
    assert str(raised.value).startswith(str(path))
    assert path.read_text() == text
    assert list(tmp_path.iterdir()) == [path]


def test_the_codex_snippet_is_toml_that_parses_to_the_entry() -> None:
    codex = CLIENTS["codex"]
    text = snippet(codex, "toolkiln", codex.stdio_entry(["/a b/toolkiln", "serve", "C:\\tools"]))
    assert tomllib.loads(text) == {
        "mcp_servers": {
            "toolkiln": {
                "command": "/a b/toolkiln",
                "args": ["serve", "C:\\tools"],
                "startup_timeout_sec": 60,
            }
        }
    }
