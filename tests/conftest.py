"""Shared fixtures: real scripts written into a temporary tools folder."""

from __future__ import annotations

import json
import os
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from toolkiln.cli import cli

MakeTool = Callable[..., Path]


@pytest.fixture(autouse=True, scope="session")
def private_config_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """No test writes into the user's ~/.config: the configs of served folders, tokens
    and the task store go to a folder of this session (servers started as processes
    inherit it). A test that needs its own sets XDG_CONFIG_HOME with monkeypatch."""
    home = tmp_path_factory.mktemp("xdg-config")
    before = os.environ.get("XDG_CONFIG_HOME")
    os.environ["XDG_CONFIG_HOME"] = str(home)
    yield home
    if before is None:
        os.environ.pop("XDG_CONFIG_HOME", None)
    else:
        os.environ["XDG_CONFIG_HOME"] = before


@pytest.fixture
def tools_dir(tmp_path: Path) -> Path:
    path = tmp_path / "tools"
    path.mkdir()
    return path


@pytest.fixture
def state(tmp_path: Path) -> Path:
    """A server's state folder (its token, its discovery file), empty."""
    path = tmp_path / "state"
    path.mkdir()
    return path


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    return tmp_path / "config"


@pytest.fixture
def make_tool(tools_dir: Path) -> MakeTool:
    """Write a script under the tools folder: `make_tool("greet.sh", body)`.

    The body is dedented; it is made executable unless `executable=False`.
    """

    def make(relative_path: str, body: str, *, executable: bool = True) -> Path:
        path = tools_dir / relative_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body).lstrip("\n"))
        if executable:
            path.chmod(0o755)
        return path

    return make


def tune_tool(config_dir: Path, name: str, **script_config: Any) -> None:
    """Set keys of a discovered tool's `script_config` in config/tools/<name>.json, as a
    user editing the file would (build after)."""
    path = config_dir / "tools" / f"{name}.json"
    config = json.loads(path.read_text())
    config["script_config"].update(script_config)
    path.write_text(json.dumps(config))


@pytest.fixture
def run_cli(tools_dir: Path, config_dir: Path) -> Callable[..., Result]:
    """Run a toolkiln command in-process on the temporary folders."""

    def run(*args: str) -> Result:
        command, *rest = args
        return CliRunner().invoke(
            cli,
            [command, "--tools-dir", str(tools_dir), "--config-dir", str(config_dir), *rest],
            catch_exceptions=False,
        )

    return run


def pids_alive(pids: list[int], grace: float = 5.0) -> list[int]:
    """The pids among `pids` still running after up to `grace` seconds (zombies count as
    gone). A killed process dies when the kernel next schedules it, so allow for that."""
    deadline = time.monotonic() + grace
    while True:
        alive = [pid for pid in pids if _running(pid)]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.02)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):  # gone, or gone between the open and the read
        return False
    return state != "Z"


def child_env() -> dict[str, str]:
    """The environment for a server started as a subprocess by a test."""
    env = dict(os.environ)
    env.pop("TOOLKILN_TOOLS_DIR", None)
    env.pop("TOOLKILN_CONFIG_DIR", None)
    return env


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
