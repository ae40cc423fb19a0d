"""The workspace sandbox: where a tool's `path` arguments may point (seeds/003).

A relative path is taken inside the first allowed folder; an absolute one only with
`allow_absolute_paths`. The result must stay inside an allowed folder: `..` that
climbs out is refused, and so is a symlink that leads out (or, without
`follow_symlinks`, any symlink at all). The script gets the resolved absolute path.
"""

from __future__ import annotations

import os
from pathlib import Path

from toolkiln.model import WorkspaceConfig

TOOL_DIR = "{TOOL_DIR}"


class WorkspaceError(ValueError):
    """A path argument that the tool's workspace does not admit; the message says why."""


def resolve_path(value: str, workspace: WorkspaceConfig, tool_dir: Path) -> str:
    roots = [_root(allowed, tool_dir) for allowed in workspace.allowed_paths]
    if not roots:
        raise WorkspaceError("the tool's workspace_config allows no paths")
    if "\0" in value:  # the argument checker refuses it first; os.path would raise ValueError
        raise WorkspaceError(f"{value!r} contains a NUL character, which no file name can hold")
    given = Path(value)
    if given.is_absolute() and not workspace.allow_absolute_paths:
        raise WorkspaceError(f"{value!r} is absolute; give a path inside the workspace ({roots[0]})")
    target = Path(os.path.normpath(given if given.is_absolute() else roots[0] / given))
    if not any(target.is_relative_to(root) for root in roots):
        raise WorkspaceError(f"{value!r} leads outside the workspace ({', '.join(map(str, roots))})")
    real = Path(os.path.realpath(target))
    if real != target:
        if not workspace.follow_symlinks:
            raise WorkspaceError(f"{value!r} goes through a symlink, and this workspace does not follow them")
        if not any(real.is_relative_to(root) for root in roots):
            raise WorkspaceError(f"{value!r} is a symlink that leads outside the workspace")
    return str(real)


def workspace_roots(workspace: WorkspaceConfig, tool_dir: Path) -> list[Path]:
    """The workspace's allowed folders, absolute, `{TOOL_DIR}` expanded, their own symlinks resolved."""
    return [_root(allowed, tool_dir) for allowed in workspace.allowed_paths]


def _root(allowed: str, tool_dir: Path) -> Path:
    """An allowed folder, absolute and with its own symlinks resolved."""
    path = Path(allowed.replace(TOOL_DIR, str(tool_dir)))
    return Path(os.path.realpath(path if path.is_absolute() else tool_dir / path))
