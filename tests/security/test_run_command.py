"""Issue 16, holes 3, 4 and 5: the built-in run_command tool, attacked over HTTP `/rpc`.

A real `toolkiln serve --http` on a project with the sample `notes` tool (it writes
files in its workspace) and the committed example config/server.json turned on.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.serve.http_server import RunningServer, http_server
from toolkiln.build.merge import build_catalog

REPO = Path(__file__).resolve().parent.parent.parent
SECRET = "the-secret-outside-the-project"


def make_project(folder: Path, **overrides: Any) -> Path:
    """A git project at `folder` with the sample notes tool and the committed
    config/server.json, run_command on; returns its config folder."""
    config_dir, tools_dir = folder / "config", folder / "tools"
    (config_dir / "tools").mkdir(parents=True)
    shutil.copytree(REPO / "tools" / "notes", tools_dir / "notes")
    shutil.copy(REPO / "config" / "tools" / "notes.json", config_dir / "tools" / "notes.json")
    server = json.loads((REPO / "config" / "server.json").read_text())
    server["run_command"].update(enabled=True, **overrides)
    (config_dir / "server.json").write_text(json.dumps(server))
    (folder / "README.md").write_text("a project\n")
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_text(SECRET + "\n")
    return path


@pytest.fixture
def served(tmp_path: Path, secret: Path) -> Iterator[RunningServer]:
    with http_server(make_project(tmp_path / "project"), tmp_path / "state") as server:
        yield server


@pytest.fixture
def served_shell(tmp_path: Path, secret: Path) -> Iterator[RunningServer]:
    config_dir = make_project(
        tmp_path / "project", shell=True, allow=["ls", "cat", "head", "wc", "git", "echo"]
    )
    with http_server(config_dir, tmp_path / "state") as server:
        yield server


def call(server: RunningServer, name: str, **arguments: str) -> tuple[bool, str]:
    result = server.rpc("tools/call", {"name": name, "arguments": arguments}).json()["result"]
    return bool(result.get("isError")), "\n".join(item.get("text", "") for item in result["content"])


# --- hole 3: the example allowlist printed any file -----------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "git diff {secret} /dev/null",
        "git diff --no-index {secret} /dev/null",
        "git diff -- {secret}",
        "cat {secret}",
        "cat ../secret.txt",
        "head -n 5 ../secret.txt",
        "cat link-out",
        "git diff link-out /dev/null",
        "wc -c link-out",
    ],
)
def test_no_file_outside_the_roots_is_printed(
    served: RunningServer, secret: Path, tmp_path: Path, command: str
) -> None:
    (tmp_path / "project" / "link-out").symlink_to(secret)
    error, text = call(served, "run_command", command=command.format(secret=secret))
    assert error
    assert text.startswith("Refused: "), text
    assert SECRET not in text


def test_files_inside_the_root_are_still_read(served: RunningServer) -> None:
    error, text = call(served, "run_command", command="cat README.md")
    assert not error, text
    assert "a project" in text
    error, text = call(served, "run_command", command="git status --short")
    assert not error, text


# --- hole 4: a git config planted by a tool ran as the server's user ----------------------------


def test_a_repository_planted_by_a_tool_runs_nothing(served: RunningServer, tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    fsmonitor = f'fsmonitor = "touch {marker}; echo"'
    planted = {
        "evilrepo/.git/HEAD": "ref: refs/heads/main",
        "evilrepo/.git/config": f"[core]\n\trepositoryformatversion = 0\n\t{fsmonitor}\n",
        "evilrepo/.git/refs/heads/.keep": "",
        "evilrepo/.git/objects/.keep": "",
    }
    for file, text in planted.items():
        error, answer = call(served, "notes", function="write", file=file, text=text)
        assert not error, answer
    evilrepo = tmp_path / "project" / "tools" / "notes" / "workspace" / "evilrepo"
    subprocess.run(["git", "status"], cwd=evilrepo, capture_output=True)
    assert marker.exists(), "the planted repository runs its fsmonitor under a plain git"
    marker.unlink()

    error, text = call(served, "run_command", command="git status", workdir=str(evilrepo))
    assert error
    assert "a folder a tool may write" in text, text
    error, text = call(served, "run_command", command="git status", workdir="tools/notes/workspace/evilrepo")
    assert error and "a folder a tool may write" in text
    error, text = call(served, "run_command", command="git status --short")  # the project, around it
    assert not error, text
    error, text = call(served, "run_command", command="cat tools/notes/workspace/evilrepo/.git/config")
    assert error and "a folder a tool may write" in text
    assert not marker.exists()


# --- hole 5: shell mode ran a hidden line ---------------------------------------------------------


def test_the_hidden_line_in_shell_mode_runs_nothing(served_shell: RunningServer, tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    payload = base64.b64encode(f"touch {marker}\n".encode()).decode()
    error, text = call(served_shell, "run_command", command=f"ls #'\n{payload} | base64 -d | sh\n#'")
    assert error and text.startswith("Refused: "), text
    for command in [
        f"ls # {payload}",
        f"echo $(touch {marker})",
        f"echo x > {marker}",
        "ls ${IFS}x",
        f"echo `touch {marker}`",
    ]:
        error, text = call(served_shell, "run_command", command=command)
        assert error and text.startswith("Refused: "), (command, text)
    assert not marker.exists()
    error, text = call(served_shell, "run_command", command="cat README.md | wc -l && echo done")
    assert not error, text
    assert "1\ndone" in text
