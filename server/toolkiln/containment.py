"""Whether a path that a config names stays inside the folder it belongs to.

A per-tool config names its script (`script_path`) and its requirements file relative
to the tools folder, a prompt its template relative to `prompts/`, a resource its file
relative to `resources/`. `build` refuses an item whose file lies outside its folder,
and the runner and the server check again before they run or read it (the compiled
`tools.json` may have been edited by hand, or a symlink planted since).

"Inside" is decided on resolved paths: a symlink inside the folder that leads out of it
is outside. The folder itself may be a symlink (`tools -> ~/src/my-tools`): it is
resolved first, and its files are checked against where it really is. Shared by the
build stage and the runner, so it imports neither.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_O_PATH = getattr(os, "O_PATH", None)  # Linux: an fd that names a file, opened for nothing


def escape_reason(folder: Path, relative: str) -> str | None:
    """Why `relative` does not name a file inside `folder`, or None when it does."""
    return locate(folder, relative)[1]


def locate(folder: Path, relative: str) -> tuple[Path | None, str | None]:
    """Where `relative` leads, every symlink resolved, and why that is not inside
    `folder` (None when it is): one resolution for callers that need both."""
    if "\0" in relative:
        return None, "it contains a NUL character"
    if not relative or Path(relative).is_absolute():
        return None, f"{relative!r} is not a path relative to {folder}"
    root = Path(os.path.realpath(folder))
    target = Path(_resolved_under(str(root), relative))
    if target == root or not target.is_relative_to(root):
        lexical = Path(os.path.normpath(root / relative))
        how = "a symlink that leads" if lexical.is_relative_to(root) and lexical != root else "a path"
        return target, f"{relative!r} is {how} outside {root} (it resolves to {target})"
    return target, None


def _resolved_under(root: str, relative: str) -> str:
    """`os.path.realpath(root/relative)` for a `root` resolved already: only the parts of
    `relative` are looked at (one lstat each, not one for every part of `root` again);
    at a symlink, a `..` or a part that is not there, the whole path is resolved as
    realpath does it."""
    path = root
    for part in relative.split("/"):
        if part in ("", "."):
            continue
        path = os.path.join(path, part)
        try:
            plain = part != ".." and not stat.S_ISLNK(os.lstat(path).st_mode)
        except OSError:
            plain = False
        if not plain:
            return os.path.realpath(os.path.join(root, relative))
    return path


def is_plain(path: str) -> bool:
    """Whether `path` (absolute, no `.`, `..` or empty parts) names a file that exists
    with no symlink on its way, so that `os.path.realpath(path) == path`. On Linux one
    open and one readlink, whatever the depth (the kernel's own name for the file opened
    is `path` only if no part of it led elsewhere); else one `lstat` a part. False when
    in doubt: the caller then resolves the path as realpath does."""
    if _O_PATH is None:
        return _plain_by_parts(path)
    try:
        descriptor = os.open(path, _O_PATH | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return os.readlink(f"/proc/self/fd/{descriptor}") == path
    except OSError:  # no /proc
        return _plain_by_parts(path)
    finally:
        os.close(descriptor)


def _plain_by_parts(path: str) -> bool:
    end = 0
    try:
        while (end := path.find("/", end + 1)) > 0:
            if stat.S_ISLNK(os.lstat(path[:end]).st_mode):
                return False
        return not stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def simple_relative(relative: str) -> bool:
    """Whether `relative` is a plain relative path: parts that are names, never empty,
    `.` or `..` (nor a NUL), so that `folder/relative` lies inside `folder` as written."""
    return (
        bool(relative)
        and "\0" not in relative
        and all(part not in ("", ".", "..") for part in relative.split("/"))
    )
