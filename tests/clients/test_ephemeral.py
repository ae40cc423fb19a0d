"""Which environment this toolkiln runs from: uvx's and `pipx run`'s are thrown away (a
client entry naming a path in them breaks one day), installed ones stay."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import toolkiln
from tests.conftest import child_env
from toolkiln.clients.ephemeral import ephemeral_runner


def make_environment(root: Path, *parts: str, marker: str = "pyvenv.cfg") -> Path:
    prefix = root.joinpath(*parts)
    prefix.mkdir(parents=True)
    (prefix / marker).write_text("{}\n")
    return prefix


@pytest.mark.parametrize(
    ("parts", "marker", "runner"),
    [
        ((".cache", "uv", "archive-v0", "x1Yz"), "pyvenv.cfg", "uvx"),
        (("cache", "uv", "environments-v2", "toolkiln-4f1e"), "pyvenv.cfg", "uvx"),
        ((".local", "pipx", ".cache", "3c1b2a"), "pipx_metadata.json", "pipx"),
        ((".cache", "pipx", "3c1b2a"), "pipx_metadata.json", "pipx"),
        ((".local", "share", "uv", "tools", "toolkiln"), "pyvenv.cfg", None),
        ((".local", "share", "pipx", "venvs", "toolkiln"), "pipx_metadata.json", None),
        (("project", ".venv"), "pyvenv.cfg", None),
    ],
)
def test_throwaway_environments_are_told_from_installed_ones(
    tmp_path: Path, parts: tuple[str, ...], marker: str, runner: str | None
) -> None:
    assert ephemeral_runner(make_environment(tmp_path, *parts, marker=marker)) == runner


def test_a_toolkiln_run_from_uvx_cache_writes_an_entry_that_starts_it_with_uvx(tmp_path: Path) -> None:
    """A real virtual environment where uvx keeps its own, running this toolkiln."""
    prefix = tmp_path / "cache" / "uv" / "archive-v0" / "Abc123"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(prefix)], check=True, timeout=120)
    [site] = prefix.glob("lib/python3*/site-packages")
    source = Path(toolkiln.__file__).parents[1]
    (site / "toolkiln_under_test.pth").write_text(f"{source}\n{sysconfig.get_paths()['purelib']}\n")
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    done = subprocess.run(
        [prefix / "bin" / "python", "-m", "toolkiln", "config", "json", str(scripts)],
        capture_output=True,
        text=True,
        timeout=60,
        env=child_env(),
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    entry = json.loads(done.stdout)["mcpServers"]["toolkiln"]
    assert Path(entry["command"]).name == "uvx"
    assert entry["args"][-3:] == ["toolkiln", "serve", str(scripts.resolve())]
    assert str(prefix) not in done.stdout, "nothing points into the throwaway environment"
    assert "runs from uvx's temporary environment" in done.stderr
    assert f" toolkiln install json {scripts} --config-file PATH" in done.stderr
