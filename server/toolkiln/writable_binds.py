"""The folders a confined tool may write: checked before every call and at build.

A writable folder (a workspace, a `confinement.writable` entry, `run_command`'s) is
bound read-write into the call's sandbox. A call may write it, so a call may leave a
symlink there: were the next call's folder resolved through it (`workspace/out ->
~`), that call could write wherever the link points. So a writable folder is refused
when any part of its path, from the tool's folder on (or the whole path, when it is
absolute), is a symlink, and when it lies inside another writable folder of the same
tool (which a call could have replaced by a link). The check is made again at each
call, since a folder can become a link between two calls. Shared by the build stage
and the runner, so it imports neither.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

TOOL_DIR = "{TOOL_DIR}"


class WritableRefused(ValueError):
    """A writable folder that could widen what a call may write; the message says which and the fix."""


def writable_folders(paths: Iterable[str], base_dir: Path) -> list[str]:
    """`paths` (absolute, or relative to `base_dir`; `{TOOL_DIR}` is `base_dir`) as
    absolute folders, once each; `WritableRefused` for one that goes through a symlink
    or lies inside another. `base_dir` itself is taken where it really is."""
    base = Path(os.path.realpath(base_dir))
    folders: dict[Path, str] = {}
    for path in paths:
        expanded = Path(path.replace(TOOL_DIR, str(base)))
        folder = Path(os.path.normpath(expanded if expanded.is_absolute() else base / expanded))
        real = Path(os.path.realpath(folder))
        if real != folder:
            raise WritableRefused(
                f"the writable folder {path!r} ({folder}) goes through a symlink (it leads to {real}): "
                "a call may write there, so a link in it could send the next call's writes anywhere; "
                "name the real folder, or remove the link"
            )
        folders.setdefault(folder, path)
    for inner, spelled in folders.items():
        for outer, outer_spelled in folders.items():
            if inner != outer and inner.is_relative_to(outer):
                raise WritableRefused(
                    f"the writable folder {spelled!r} ({inner}) lies inside the writable folder "
                    f"{outer_spelled!r} ({outer}), which already makes it writable (and where a call "
                    "could replace it by a symlink): remove it from the list"
                )
    return [str(folder) for folder in folders]
