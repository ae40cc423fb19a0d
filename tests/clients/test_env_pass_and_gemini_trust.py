"""`install CLIENT --env NAME` passes a name (never a value unless given) in each
client's own syntax; after `install gemini`, a folder Gemini CLI does not trust gets a
hint (and toolkiln never writes trust)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkiln.cli import cli


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", raising=False)
    (tmp_path / "scripts").mkdir()
    return tmp_path / "home"


def install(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["install", *args])
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("client", "reference"),
    [("claude-code", "${API_KEY}"), ("cursor", "${env:API_KEY}"), ("vscode", "${env:API_KEY}"),
     ("windsurf", "${env:API_KEY}"), ("gemini", "${API_KEY}")],
)  # fmt: skip
def test_a_name_is_passed_through_never_its_value(
    home: Path, tmp_path: Path, client: str, reference: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("API_KEY", "the-value")
    target = tmp_path / f"{client}.json"
    code, output = install(
        client, str(tmp_path / "scripts"), "--env", "API_KEY", "--config-file", str(target)
    )
    assert code == 0, output
    text = target.read_text()
    assert "the-value" not in text
    servers = json.loads(text)["servers" if client == "vscode" else "mcpServers"]
    assert servers["toolkiln"]["env"]["API_KEY"] == reference


def test_codex_takes_the_names_as_env_vars(home: Path, tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    code, output = install(
        "codex", str(tmp_path / "scripts"), "--env", "API_KEY", "--config-file", str(target)
    )
    assert code == 0, output
    assert tomllib.loads(target.read_text())["mcp_servers"]["toolkiln"]["env_vars"] == ["API_KEY"]


def test_claude_desktop_cannot_pass_a_name_and_says_what_to_do(home: Path, tmp_path: Path) -> None:
    target = tmp_path / "claude.json"
    code, output = install(
        "claude-desktop", str(tmp_path / "scripts"), "--env", "API_KEY", "--config-file", str(target)
    )
    assert code == 1 and ".env" in output and "--env API_KEY=VALUE" in output
    assert not target.exists()
    code, output = install(
        "claude-desktop", str(tmp_path / "scripts"), "--env", "API_KEY=given", "--config-file", str(target)
    )
    assert code == 0 and "keep it private" in output
    assert json.loads(target.read_text())["mcpServers"]["toolkiln"]["env"] == {"API_KEY": "given"}


def test_gemini_install_hints_at_an_untrusted_folder_and_writes_no_trust(home: Path, tmp_path: Path) -> None:
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"security": {"folderTrust": {"enabled": True}}}))
    scripts = tmp_path / "scripts"
    code, output = install("gemini", str(scripts))
    assert code == 0, output
    assert f"{scripts} is not trusted" in output and "Trust folder" in output
    trust = home / ".gemini" / "trustedFolders.json"
    assert not trust.exists()
    trust.write_text(json.dumps({str(tmp_path / "x"): "TRUST_PARENT"}))  # trusts tmp_path and below
    code, output = install("gemini", str(scripts))
    assert "not trusted" not in output
    trust.write_text(json.dumps({str(tmp_path): "TRUST_FOLDER", str(scripts): "DO_NOT_TRUST"}))
    assert "not trusted" in install("gemini", str(scripts))[1]
    settings.write_text(json.dumps({"security": {"folderTrust": {"enabled": False}}}))
    assert "not trusted" not in install("gemini", str(scripts))[1]
