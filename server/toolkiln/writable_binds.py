"""The folders a confined tool may write: checked before every call and at build.

A writable folder (a workspace, a `confinement.writable` entry, `run_command`'s) is
bound read-write into the call's sandbox. A call may write it, so a call may leave a
symlink there: were the next call's folder resolved through it (`workspace/out ->
~`), that call could write wherever the link points. So a writable folder is refused
when any part of its path, from the tool's folder on (or the whole path, when it is
absolute), is a symlink, and when it lies inside another writable folder of the same
tool (which a call could have replaced by a link). The check is made again at each
call, since a folder can become a link between two calls.

bubblewrap binds a folder by its path, a moment after the check: were a folder on that
path writable by anyone (a concurrent call of this tool or of another, `run_command`),
a link swapped in between the check and the bind would be bound instead. So a writable
folder must also not lie inside a folder any other tool or `run_command` may write
(`others`, every writable folder the catalog or the configs name): then nothing a call
can do reaches a folder on its path, and what was checked is what is bound. Nor may it
hold the tools folder (every script would be one a call could have written), and a
folder written `~...` is refused, not taken as a folder named `~` beside the script.
Shared by the build stage and the runner, so it imports neither.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from toolkiln.writable import WritableFolders

TOOL_DIR = "{TOOL_DIR}"


class WritableRefused(ValueError):
    """A writable folder that could widen what a call may write; the message says which and the fix."""


def writable_folders(
    paths: Iterable[str], base_dir: Path, others: WritableFolders | None = None, tools_dir: Path | None = None
) -> list[str]:
    """`paths` (absolute, or relative to `base_dir`; `{TOOL_DIR}` is `base_dir`) as
    absolute folders, once each; `WritableRefused` for one that goes through a symlink,
    lies inside another of `paths` or of `others`, holds `tools_dir`, or is written `~...`.
    `base_dir` itself is taken where it really is."""
    base = Path(os.path.realpath(base_dir))
    folders: dict[Path, str] = {}
    for path in paths:
        if path.startswith("~"):
            raise WritableRefused(
                f"the writable folder {path!r} starts with '~', which toolkiln does not expand (it would "
                "be a folder named '~' beside the script): write the folder's absolute path"
            )
        expanded = Path(path.replace(TOOL_DIR, str(base)))
        folder = Path(os.path.normpath(expanded if expanded.is_absolute() else base / expanded))
        try:
            _check_alone(folder, path, others, tools_dir)
            real = Path(os.path.realpath(folder))
        except OSError as error:  # a link on its path replaced while resolved: a race, refused
            raise WritableRefused(
                f"the writable folder {path!r} ({folder}) changed while toolkiln checked it "
                f"({error.strerror}): something is replacing a folder on its path; give the tool "
                "a folder of its own, outside every folder a tool may write"
            ) from None
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


def _check_alone(folder: Path, spelled: str, others: WritableFolders | None, tools_dir: Path | None) -> None:
    """`WritableRefused` for a folder inside one another tool may write, or holding the tools folder."""
    holder = others.holder_of(str(folder)) if others is not None else None
    if holder is not None:
        raise WritableRefused(
            f"the writable folder {spelled!r} ({folder}) lies inside the writable folder "
            f"{holder.describe()}: a call of that tool could replace a folder on its path by a "
            "symlink between toolkiln's check and the bind, and send this tool's writes anywhere; "
            "give it a folder of its own, outside every folder a tool may write"
        )
    if tools_dir is not None:
        tools = Path(os.path.realpath(tools_dir))
        if tools == folder or tools.is_relative_to(folder):
            raise WritableRefused(
                f"the writable folder {spelled!r} ({folder}) holds the tools folder {tools}: a call "
                "could write a script that the next discovery would publish; give it a folder "
                "outside the tools folder, or inside it (such as '{TOOL_DIR}/workspace')"
            )
