"""containment.is_plain: the runner's per-call proof that a script's path resolves to itself."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolkiln import containment
from toolkiln.containment import is_plain, simple_relative


@pytest.fixture(params=["open", "lstat"])
def way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways of telling: the fd's name (Linux) and one lstat per part (elsewhere)."""
    if request.param == "lstat":
        monkeypatch.setattr(containment, "_O_PATH", None)
    return str(request.param)


def test_is_plain_is_realpath_is_itself(tmp_path: Path, way: str) -> None:
    root = Path(os.path.realpath(tmp_path))
    (root / "real" / "sub").mkdir(parents=True)
    script = root / "real" / "sub" / "run.sh"
    script.write_text("#!/bin/sh\n")
    (root / "linked").symlink_to(root / "real")
    (root / "real" / "alias.sh").symlink_to(script)
    (root / "real" / "dangling.sh").symlink_to(root / "nowhere")
    assert is_plain(str(script))
    assert is_plain(str(root / "real"))
    for path in [
        root / "linked" / "sub" / "run.sh",  # a folder on the way is a symlink
        root / "real" / "alias.sh",  # the file itself is one
        root / "real" / "dangling.sh",
        root / "real" / "missing.sh",
    ]:
        assert os.path.realpath(path) != str(path) or not path.exists()
        assert not is_plain(str(path)), path


@pytest.mark.parametrize(
    ("relative", "simple"),
    [("run.sh", True), ("a/b/run.sh", True), ("", False), ("/abs", False), ("a//b", False),
     ("./a", False), ("a/..", False), ("../a", False), ("a/\0", False), ("a/", False)],
)  # fmt: skip
def test_simple_relative(relative: str, simple: bool) -> None:
    assert simple_relative(relative) is simple
