"""Files named by untrusted text (a tool's rich result, a prompt's rendered messages), read
only inside the folders their author declared.

What a tool prints may carry an attacker's words, so a `path` in its output is only
read inside a `FileFence`: for a tool, the folders of its `workspace_config.allowed_paths`
(the tool's data, declared by its author and user); for a prompt, the template's own
folder. Inside a fence a name must be relative, without `..`; no component may be a
symlink (each is opened with O_NOFOLLOW, relative to the folder opened before it, so
nothing can be swapped between a check and the open); the file must be a regular file
with one link (checked with fstat on the opened descriptor: never a FIFO, a device or a
hard link to a file elsewhere); and at most `MAX_FILE_BYTES` are read for one result,
all its files together, whatever their sizes claim. The read blocks: callers run it in
a worker thread.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from toolkiln.model import WorkspaceConfig
from toolkiln.runner.workspace import workspace_roots

# The SDK refuses a streamed message over 1 MiB; base64 makes a file a third bigger. The
# cap is for all the files of one result together: a result may name one file many times.
MAX_FILE_BYTES = 700 * 1024
_CHUNK = 64 * 1024
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO that a race put in place must not wait for a writer.
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


class FileRefused(Exception):
    """A named file that the fence does not admit or that cannot be read; the message says why."""


@dataclass(frozen=True)
class FileFence:
    """The folders a file may be named in (a workspace's, taken from `base`), and what to
    tell the user to widen them. Resolved only when a file is named, off the event loop."""

    workspace: WorkspaceConfig
    base: Path
    how_to_allow: str

    def roots(self) -> list[Path]:
        return workspace_roots(self.workspace, self.base)


def tool_fence(workspace: WorkspaceConfig, tool_dir: Path, config_file: Path) -> FileFence:
    """A tool's output may name files in its workspace's folders, and nowhere else."""
    return FileFence(
        workspace=workspace,
        base=tool_dir,
        how_to_allow=(
            "a tool's result may only name files in the tool's workspace: put the file there, "
            f"or add its folder to workspace_config.allowed_paths in {config_file}"
        ),
    )


def folder_fence(folder: Path) -> FileFence:
    """Files only in `folder` (a prompt template's own folder)."""
    return FileFence(
        workspace=WorkspaceConfig(allowed_paths=[str(folder)]),
        base=folder,
        how_to_allow=f"a prompt's messages may only name files in its own folder, {folder}",
    )


def read_named_file(name: object, fence: FileFence, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes (at most `limit`) of the file `name` inside the fence; raises
    `FileRefused` saying why."""
    parts = _checked_parts(name, fence)
    roots = fence.roots()
    if not roots:
        raise FileRefused(f"{name!r}: no folder may hold files here ({fence.how_to_allow})")
    for root in roots:
        try:
            root_fd = os.open(root, _DIRECTORY & ~os.O_NOFOLLOW)  # the root's own links are the user's
        except FileNotFoundError:
            continue
        except OSError as error:
            raise FileRefused(f"{name!r}: cannot open the folder {root}: {error.strerror}") from None
        try:
            data = _read_beneath(root_fd, parts, f"{name!r}", fence, limit)
        finally:
            os.close(root_fd)
        if data is not None:
            return data
    folders = ", ".join(map(str, roots))
    raise FileRefused(f"{name!r} is not in {folders} ({fence.how_to_allow})")


def _checked_parts(name: object, fence: FileFence) -> list[str]:
    if not isinstance(name, str) or not name:
        raise FileRefused("`path` must be a file name")
    if "\0" in name:
        raise FileRefused(f"{name!r} holds a NUL character")
    path = PurePosixPath(name)
    if path.is_absolute():
        raise FileRefused(f"{name!r} is absolute; name it relative to its folder ({fence.how_to_allow})")
    parts = [part for part in path.parts if part != "."]
    if ".." in parts:
        raise FileRefused(f"{name!r} holds `..`; name it relative to its folder ({fence.how_to_allow})")
    if not parts:
        raise FileRefused(f"{name!r} names a folder, not a file")
    return parts


def _read_beneath(root_fd: int, parts: list[str], shown: str, fence: FileFence, limit: int) -> bytes | None:
    """The file at `parts` below the folder `root_fd`; None when a component is missing."""
    fds: list[int] = []
    try:
        folder = root_fd
        for part in parts[:-1]:
            kind = _kind(folder, part)
            if kind is None or stat.S_ISREG(kind):  # no such folder
                return None
            if not stat.S_ISDIR(kind):
                raise FileRefused(_not_allowed(shown, part, kind, fence))
            folder = _open(folder, part, _DIRECTORY, shown)
            fds.append(folder)
        kind = _kind(folder, parts[-1])
        if kind is None:
            return None
        if not stat.S_ISREG(kind):  # never even open a FIFO or a device
            raise FileRefused(_not_allowed(shown, parts[-1], kind, fence))
        fd = _open(folder, parts[-1], _FILE, shown)
        fds.append(fd)
        return _read_regular(fd, shown, limit)
    finally:
        for fd in fds:
            os.close(fd)


def _kind(folder: int, part: str) -> int | None:
    """The file type bits of `part` itself (a symlink is a symlink), or None if it is missing."""
    try:
        return os.stat(part, dir_fd=folder, follow_symlinks=False).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise FileRefused(f"cannot read {part!r}: {error.strerror}") from None


def _open(folder: int, part: str, flags: int, shown: str) -> int:
    try:
        return os.open(part, flags, dir_fd=folder)
    except OSError as error:  # replaced since it was looked at: a symlink now, or gone
        raise FileRefused(f"{shown}: {part!r} changed while it was opened ({error.strerror})") from None


def _read_regular(fd: int, shown: str, limit: int) -> bytes:
    """At most `limit` bytes of a regular file with one link; counted as read, not as stat says."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused(f"{shown} is not a regular file")
    if info.st_nlink != 1:
        raise FileRefused(f"{shown} has {info.st_nlink} hard links; it may be a file from elsewhere")
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
    left = "" if limit == MAX_FILE_BYTES else f"the {limit} bytes left of "
    raise FileRefused(
        f"{shown} is over {left}{MAX_FILE_BYTES} bytes, the most the files of one result may "
        "carry together (serve bigger files as a resource and return a resource_link)"
    )


def _not_allowed(shown: str, part: str, mode: int, fence: FileFence) -> str:
    return f"{shown}: {part!r} is {_describe(mode)}; only regular files are sent ({fence.how_to_allow})"


def _describe(mode: int) -> str:
    kinds: Iterable[tuple[bool, str]] = (
        (stat.S_ISLNK(mode), "a symlink (links are never followed)"),
        (stat.S_ISDIR(mode), "a folder"),
        (stat.S_ISFIFO(mode), "a FIFO"),
        (stat.S_ISCHR(mode) or stat.S_ISBLK(mode), "a device"),
        (stat.S_ISSOCK(mode), "a socket"),
    )
    return next((text for hit, text in kinds if hit), "not a regular file")
