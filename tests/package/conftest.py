"""The wheel, built once and installed into a fresh virtual environment outside the
repository, for every test of this folder (building it is most of their time)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
UV = Path(sys.executable).with_name("uv")


@dataclass(frozen=True)
class Install:
    wheel: Path
    bin: Path  # the venv's bin/
    home: Path  # XDG_CONFIG_HOME for everything run from it
    work: Path  # a folder outside the repository

    def env(self) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if not key.startswith(("TOOLKILN_", "PYTHON"))}
        env.pop("VIRTUAL_ENV", None)
        return {**env, "PATH": f"{self.bin}{os.pathsep}{env['PATH']}", "XDG_CONFIG_HOME": str(self.home)}

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / "toolkiln"), *args],
            cwd=cwd or self.work,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )


def uv(*args: str, cwd: Path = REPO) -> None:
    result = subprocess.run(
        [str(UV), *args], cwd=cwd, capture_output=True, text=True, timeout=400, check=False
    )
    assert result.returncode == 0, f"uv {' '.join(args)}:\n{result.stdout}\n{result.stderr}"


@pytest.fixture(scope="session")
def install(tmp_path_factory: pytest.TempPathFactory) -> Install:
    root = tmp_path_factory.mktemp("wheel")
    uv("build", "--wheel", "--out-dir", str(root / "dist"), str(REPO))
    (wheel,) = (root / "dist").glob("toolkiln-*.whl")
    uv("venv", "--quiet", "--python", sys.executable, str(root / "venv"), cwd=root)
    uv("pip", "install", "--quiet", "--python", str(root / "venv" / "bin" / "python"), str(wheel), cwd=root)
    work = root / "work"
    work.mkdir()
    return Install(wheel, root / "venv" / "bin", root / "home", work)
