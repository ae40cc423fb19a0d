"""The writable folders' resolved paths, worked out with each parent resolved once."""

from __future__ import annotations

import os
from pathlib import Path

from toolkiln.writable import WritableFolder, WritableFolders, _resolved


def test_a_folder_resolves_as_realpath_resolves_it(tmp_path: Path) -> None:
    (tmp_path / "real" / "a").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "real" / "b").symlink_to(tmp_path / "real" / "a")
    (tmp_path / "loop").symlink_to("loop")
    parents: dict[str, str] = {}
    for path in ("link/a", "link/b", "link/missing", "real/a", "nope/x/y", "loop", "loop/x", "real/b/c"):
        spelled = str(tmp_path / path)
        assert _resolved(spelled, parents) == os.path.realpath(spelled), path
    assert _resolved("/", parents) == "/"


def test_a_workspace_reached_by_a_symlinked_folder_is_still_found(tmp_path: Path) -> None:
    (tmp_path / "real" / "tool").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    folders = WritableFolders(
        [
            WritableFolder(str(tmp_path / "link" / "tool" / f"workspace{n}"), "tool 'x'", "x.json", "f")
            for n in range(3)
        ]
    )
    writer = folders.writer_of(tmp_path / "real" / "tool" / "workspace2" / "script.sh")
    assert writer is not None and writer.path.endswith("workspace2")
