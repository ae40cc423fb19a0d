"""`toolkiln install` (a real process) into config files people comment: VS Code's
`.vscode/mcp.json` and Gemini CLI's settings are JSON with comments and trailing commas.
The entry goes in; every comment, trailing comma and line of theirs stays; the result
parses; a broken file is named with its line and column and left alone."""

from __future__ import annotations

import difflib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import child_env
from toolkiln.clients.jsonc import parse_jsonc

VSCODE = """\
// Workspace MCP servers: see https://code.visualstudio.com/docs/copilot/chat/mcp-servers
{
  /* Inputs are asked for once
     and kept by VS Code. */
  "inputs": [
    {"type": "promptString", "id": "gh-token", "password": true},
  ],
  "servers": {
    // the GitHub one, over HTTP
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/", // not a comment: the // in the URL
      "headers": {"Authorization": "Bearer ${input:gh-token}"},
    },
    "notes": {"command": "notes-mcp", "args": ["--root", "// not a comment /* either */"]},
    // "disabled": {"command": "old"},
  },
  // after the servers
}
"""


def toolkiln(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    folders = ["--tools-dir", str(tmp_path / "tools"), "--config-dir", str(tmp_path / "config")]
    env = {**child_env(), "HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    env.pop("XDG_CONFIG_HOME", None)
    return subprocess.run(
        [sys.executable, "-m", "toolkiln", *args, *folders],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tools").mkdir()
    (tmp_path / "home").mkdir()
    return tmp_path


def data_of(text: str) -> Any:
    value = parse_jsonc(text.removeprefix("\ufeff"))
    assert value is not None
    return value.data


def assert_only_added(original: str, written: str) -> None:
    """Every character of theirs is still there, in its place: the install only inserted."""
    matcher = difflib.SequenceMatcher(None, original, written, autojunk=False)
    changes = [(tag, original[i1:i2]) for tag, i1, i2, _, _ in matcher.get_opcodes() if tag != "insert"]
    assert all(tag == "equal" for tag, _ in changes), f"changed or lost: {changes}"


def test_install_into_a_commented_vscode_file_keeps_every_comment(project: Path) -> None:
    path = project / ".vscode" / "mcp.json"
    path.parent.mkdir()
    path.write_text(VSCODE)
    result = toolkiln(project, "install", "vscode")
    assert result.returncode == 0, result.stderr
    written = path.read_text()
    assert_only_added(VSCODE, written)
    data = data_of(written)
    assert list(data["servers"]) == ["github", "notes", "toolkiln"]
    assert data["servers"]["github"]["url"] == "https://api.githubcopilot.com/mcp/"
    assert data["servers"]["notes"]["args"] == ["--root", "// not a comment /* either */"]
    assert data["servers"]["toolkiln"]["type"] == "stdio"
    assert '    "toolkiln": {\n      "type": "stdio",\n' in written, "in the file's own indentation"
    [backup] = path.parent.glob("mcp.json.*.bak")
    assert backup.read_text() == VSCODE

    again = toolkiln(project, "install", "vscode")
    assert again.returncode == 0 and "nothing changed" in again.stdout
    assert path.read_text() == written


def test_an_entry_of_that_name_is_replaced_and_the_comments_around_it_stay(project: Path) -> None:
    path = project / ".vscode" / "mcp.json"
    path.parent.mkdir()
    theirs = (
        "{\n"
        '  "servers": {\n'
        "    // ours, from an older install\n"
        '    "toolkiln": {"command": "/old/toolkiln", "args": ["serve"], "env": {"X": "1"}}, // old\n'
        '    "other": {"command": "x"} /* last */\n'
        "  }\n"
        "}\n"
    )
    path.write_text(theirs)
    result = toolkiln(project, "install", "vscode")
    assert result.returncode == 0, result.stderr
    written = path.read_text()
    for kept in ("// ours, from an older install", "}, // old\n", '"other": {"command": "x"} /* last */'):
        assert kept in written
    entry = data_of(written)["servers"]["toolkiln"]
    assert entry["command"] != "/old/toolkiln" and "env" not in entry, "replaced whole"
    assert list(data_of(written)["servers"]) == ["toolkiln", "other"]


@pytest.mark.parametrize(
    ("theirs", "key"),
    [
        ("{}", "mcpServers"),
        ('{\n  "theme": "dark",\n  "mcpServers": {},\n}\n', "mcpServers"),
        ('{\n  "mcpServers": {\n    // none yet\n  }\n}\n', "mcpServers"),
        ('{\n  "general": {"vimMode": true} // the only setting\n}\n', "mcpServers"),
    ],
    ids=["empty-object", "empty-servers-trailing-comma", "servers-only-a-comment", "no-servers-yet"],
)
def test_gemini_settings_in_the_shapes_people_have(project: Path, theirs: str, key: str) -> None:
    path = project / "home" / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(theirs)
    result = toolkiln(project, "install", "gemini")
    assert result.returncode == 0, result.stderr
    written = path.read_text()
    assert_only_added(theirs, written)
    assert list(data_of(written)[key]) == ["toolkiln"]


def test_crlf_line_ends_and_a_byte_order_mark_are_kept(project: Path) -> None:
    path = project / "home" / ".cursor" / "mcp.json"
    path.parent.mkdir()
    theirs = '\ufeff{\r\n  // mine\r\n  "mcpServers": {\r\n    "a": {"command": "a"},\r\n  },\r\n}\r\n'
    path.write_bytes(theirs.encode())
    result = toolkiln(project, "install", "cursor")
    assert result.returncode == 0, result.stderr
    written = path.read_bytes().decode()
    assert written.startswith('\ufeff{\r\n  // mine\r\n  "mcpServers": {\r\n    "a": {"command": "a"},\r\n')
    assert "\n" not in written.replace("\r\n", ""), "every line ends in CRLF"
    assert list(data_of(written)["mcpServers"]) == ["a", "toolkiln"]


def test_a_token_makes_a_commented_file_private_and_its_backup_too(project: Path) -> None:
    path = project / "home" / ".cursor" / "mcp.json"
    path.parent.mkdir()
    theirs = '{\n  // shared with the team? no\n  "mcpServers": {},\n}\n'
    path.write_text(theirs)
    path.chmod(0o644)
    token = project / "token"
    token.write_text("s3cret-token\n")
    token.chmod(0o600)
    result = toolkiln(
        project,
        "install",
        "cursor",
        "--http",
        "--url",
        "http://127.0.0.1:8765/mcp",
        "--token-file",
        str(token),
    )
    assert result.returncode == 0, result.stderr
    assert os.stat(path).st_mode & 0o777 == 0o600
    [backup] = path.parent.glob("mcp.json.*.bak")
    assert os.stat(backup).st_mode & 0o777 == 0o600
    written = path.read_text()
    assert "// shared with the team? no" in written
    assert data_of(written)["mcpServers"]["toolkiln"]["headers"] == {"Authorization": "Bearer s3cret-token"}


def test_a_broken_file_is_named_with_line_and_column_and_left_alone(project: Path) -> None:
    path = project / ".vscode" / "mcp.json"
    path.parent.mkdir()
    broken = '{\n  "servers": {\n    "a": {"command": "a"}\n    "b": {}\n  }\n}\n'
    path.write_text(broken)
    result = toolkiln(project, "install", "vscode")
    assert result.returncode == 1
    assert f"{path.resolve()}:4:5: not valid JSON (expected ',' or '}}'" in result.stderr
    assert "Traceback" not in result.stderr
    assert path.read_text() == broken and list(path.parent.iterdir()) == [path], "no backup, no write"
