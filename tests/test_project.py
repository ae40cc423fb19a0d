"""`toolkiln init`: a ready project, built; nothing of the user's overwritten; the wrong
folder refused before anything is written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from toolkiln.cli import cli


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_init_makes_a_project_that_is_built_and_whose_starter_tool_runs(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    result = run("init", str(project))
    assert result.exit_code == 0, result.output
    assert os.access(project / "tools" / "now" / "run.sh", os.X_OK)
    assert (project / ".gitignore").read_text().splitlines()[1:] == [
        "/config/tools.json",
        "/config/.discovery.json",
        "/config/logs/",
        "/.env",  # the tools' secrets
    ]
    assert "built" in result.output and "1 tool (now)" in result.output
    assert f"cd {project}" in result.output
    for step in ("serve", "serve --http", "install CLIENT", "new NAME"):
        assert f" {step} " in result.output
    catalog = json.loads((project / "config" / "tools.json").read_text())
    assert [tool["name"] for tool in catalog["tools"]] == ["now"]

    folders = ["--tools-dir", str(project / "tools"), "--config-dir", str(project / "config")]
    called = run("call", "now", *folders, "timezone=UTC", "days=1")
    assert called.exit_code == 0, called.output
    answer = json.loads(called.stdout)
    assert answer["timezone"] == "UTC" and answer["utc_offset"] == "+0000"
    bad = run("call", "now", *folders, "timezone=../../etc/passwd")
    assert bad.exit_code == 1 and "is not a time zone name" in bad.output


def test_init_again_keeps_every_file_and_adds_only_what_is_missing(tmp_path: Path) -> None:
    assert run("init", str(tmp_path)).exit_code == 0  # an empty folder
    script = tmp_path / "tools" / "now" / "run.sh"
    script.write_text(script.read_text().replace("Version: 1.0.0", "Version: 9.9.9"))
    (tmp_path / ".gitignore").write_text("/config/tools.json\n")

    again = run("init", str(tmp_path))
    assert again.exit_code == 0, again.output
    assert "Version: 9.9.9" in script.read_text()
    assert (tmp_path / ".gitignore").read_text() == "/config/tools.json\n"
    assert f"kept    {tmp_path / 'tools'}/ (already there" in again.output
    assert "add: /config/.discovery.json /config/logs/" in again.output


def test_a_project_missing_its_config_gets_only_that(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "README.md").write_text("mine\n")
    result = run("init", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "config").is_dir()
    assert list((tmp_path / "tools").iterdir()) == []  # a project's tools/ gets no starter
    assert (tmp_path / "README.md").read_text() == "mine\n"


def test_a_folder_that_is_not_a_project_is_refused_and_left_untouched(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine\n")
    refused = run("init", str(tmp_path))
    assert refused.exit_code == 1
    assert "is not empty and has no tools/ or config/ folder" in refused.output
    assert "--merge" in refused.output
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notes.txt"]

    merged = run("init", "--merge", str(tmp_path))
    assert merged.exit_code == 0, merged.output
    assert (tmp_path / "tools" / "now" / "run.sh").is_file()


def test_a_fresh_git_repository_counts_as_empty(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    assert run("init", str(tmp_path)).exit_code == 0


@pytest.mark.parametrize("piece", ["tools", "config"])
def test_a_file_where_a_folder_goes_is_an_error(tmp_path: Path, piece: str) -> None:
    (tmp_path / piece).write_text("not a folder\n")
    result = run("init", str(tmp_path))
    assert result.exit_code == 1
    assert f"{tmp_path / piece} exists and is not a folder" in result.output
    assert (tmp_path / piece).read_text() == "not a folder\n"
