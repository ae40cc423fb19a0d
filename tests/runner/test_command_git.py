"""runner/command_git.py: git started by run_command obeys no config that runs a program.

Each test plants, in a real repository inside a root, the config that would make git
run a command (the kind a tool or a clone could have written), runs an ordinary git
command through run_command, and checks that the marker file that command would
create never appears.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from tests.runner.test_command import make_project, refusal, stdout
from toolkiln.runner import ToolResult
from toolkiln.runner.command_git import program_overrides

GIT_ARGS = "(status|diff|log|show|blame|commit|grep|st|config)( [^ ]+)*"
Call = Callable[..., ToolResult]


def git(repo: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.hooksPath=/dev/null", *arguments],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository at the root `work`, with one committed file `a.txt`."""
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", ".")
    (work / "a.txt").write_text("one\n")
    git(work, "add", "a.txt")
    git(work, "commit", "-q", "-m", "first")
    return work


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "PWNED"


def run_git(tmp_path: Path, command: str, **arguments: str) -> ToolResult:
    runner = make_project(tmp_path, {"allow": ["git"], "allow_args": {"git": [GIT_ARGS]}})
    return anyio.run(runner.call, "run_command", {"command": command, **arguments})


def set_config(repo: Path, key: str, value: str) -> None:
    subprocess.run(["git", "config", key, value], cwd=repo, check=True)


def test_fsmonitor_does_not_run(tmp_path: Path, repo: Path, marker: Path) -> None:
    set_config(repo, "core.fsmonitor", f"touch {marker}; echo")
    set_config(repo, "core.pager", f"touch {marker}; cat")
    subprocess.run(["git", "status"], cwd=repo, check=True, capture_output=True)
    assert marker.exists(), "the planted config works on a plain git"
    marker.unlink()
    result = run_git(tmp_path, "git status")
    assert result.exit_code == 0, result.text
    assert "On branch" in stdout(result)
    assert not marker.exists()


@pytest.mark.parametrize("command", ["git status", "git diff", "git diff --stat", "git show HEAD"])
def test_a_filter_driver_with_any_name_does_not_run(
    tmp_path: Path, repo: Path, marker: Path, command: str
) -> None:
    set_config(repo, "filter.Evil=Name.clean", f"touch {marker}; cat")
    set_config(repo, "filter.Evil=Name.smudge", f"touch {marker}; cat")
    (repo / ".gitattributes").write_text("* filter=Evil=Name\n")
    (repo / "a.txt").write_text("two\n")
    result = run_git(tmp_path, command)
    assert result.exit_code == 0, result.text
    assert not marker.exists()


@pytest.mark.parametrize("command", ["git diff", "git log -p", "git show HEAD", "git blame a.txt"])
def test_textconv_and_external_diff_do_not_run(
    tmp_path: Path, repo: Path, marker: Path, command: str
) -> None:
    set_config(repo, "diff.evil.textconv", f"touch {marker}; cat")
    set_config(repo, "diff.evil.command", f"touch {marker}; true")
    set_config(repo, "diff.external", f"touch {marker}; true")
    (repo / ".gitattributes").write_text("*.txt diff=evil\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "-m", "attributes")
    (repo / "a.txt").write_text("two\n")
    result = run_git(tmp_path, command)
    assert result.exit_code == 0, result.text
    assert not marker.exists()


def test_hooks_do_not_run(tmp_path: Path, repo: Path, marker: Path) -> None:
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    elsewhere = tmp_path / "hooks"
    elsewhere.mkdir()
    (elsewhere / "pre-commit").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (elsewhere / "pre-commit").chmod(0o755)
    set_config(repo, "core.hooksPath", str(elsewhere))
    set_config(repo, "user.name", "t")
    set_config(repo, "user.email", "t@t")
    result = run_git(tmp_path, "git commit --allow-empty -m second")
    assert result.exit_code == 0, result.text
    assert not marker.exists()


def test_a_shell_alias_does_not_run(tmp_path: Path, repo: Path, marker: Path) -> None:
    set_config(repo, "alias.st", f"!touch {marker}")
    result = run_git(tmp_path, "git st")
    assert result.is_error
    assert not marker.exists()


def test_no_global_config_and_no_repository_above_the_root(tmp_path: Path, repo: Path) -> None:
    (repo / "sub").mkdir()
    result = run_git(tmp_path, "git config --list --show-origin")
    origins = {line.split("\t")[0] for line in stdout(result).splitlines()}
    assert origins <= {"file:.git/config", "command line:"}, origins
    # The root is `work/sub`: the repository in `work`, above it, is not found.
    runner = make_project(tmp_path, {"allow": ["git"], "roots": ["work/sub"]})
    outside = anyio.run(runner.call, "run_command", {"command": "git status"})
    assert outside.exit_code == 128
    assert "not a git repository" in outside.text


@pytest.mark.parametrize(
    "command",
    [
        "git -c core.pager=sh status",
        "git -C /etc status",
        "git --git-dir=x status",
        "git --exec-path=. status",
        "git diff --ext-diff",
        "git diff --textconv",
        "git log --output=out.txt",
        "git grep -Osh x",
        "git grep --open-files-in-pager=sh x",
    ],
)
def test_options_that_run_or_write_are_refused(tmp_path: Path, repo: Path, command: str) -> None:
    text = refusal(run_git(tmp_path, command))
    assert "git" in text
    assert not (repo / "out.txt").exists()


def test_overrides_keep_names_whole() -> None:
    assert program_overrides(
        [
            "filter.a=b.clean",
            "diff.X.textconv",
            "alias.st",
            "pager.log",
            "credential.https://h.helper",
            "user.name",
            "core.fsmonitor",
        ]
    ) == {
        "filter.a=b.clean": "",
        "diff.X.textconv": "",
        "alias.st": "",
        "pager.log": "false",
        "credential.https://h.helper": "",
    }
