"""Security checks of file modes: who else could change what the server runs.

Whoever can write a tool's script, a folder on its way, a per-tool config or the
compiled config can make the server run their code with your rights: writable by
others is an error, by the group a warning. The bearer token of `serve --http` must be
readable by you alone.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from toolkiln.discover.scan import SKIPPED_FOLDERS
from toolkiln.doctor.findings import Finding, Project
from toolkiln.files import catalog_path, tool_configs_dir
from toolkiln.http_token import TOKEN_FILE
from toolkiln.state_dir import default_state_dir


def check_permissions(project: Project) -> list[Finding]:
    findings = [
        finding for path in _guarded_paths(project) if (finding := _writable_by_others(path)) is not None
    ]
    token = default_state_dir() / TOKEN_FILE
    try:
        mode = stat.S_IMODE(token.stat().st_mode)
    except OSError:
        return findings
    if mode & 0o077:
        findings.append(
            Finding(
                severity="warning",
                check="token-readable",
                path=str(token),
                message=f"the bearer token of `serve --http` can be read by other users (mode {mode:o})",
                fix=f"chmod 600 {token} (doctor --fix does it)",
                fixable=True,
            )
        )
    return findings


def _guarded_paths(project: Project) -> Iterator[Path]:
    """The tools folder and everything in it, and the config files the server trusts."""
    if project.tools_dir.is_dir():
        yield project.tools_dir
        for folder, subfolders, files in os.walk(project.tools_dir):
            subfolders[:] = sorted(
                name for name in subfolders if name not in SKIPPED_FOLDERS and not name.startswith(".")
            )
            for name in [*subfolders, *sorted(files)]:
                yield Path(folder) / name
    for path in (project.config_dir, tool_configs_dir(project.config_dir), catalog_path(project.config_dir)):
        if path.exists():
            yield path
    for path, _ in project.configs:
        yield path


def _writable_by_others(path: Path) -> Finding | None:
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None
    if not mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    who = "every user" if mode & stat.S_IWOTH else "its group"
    kind = "folder" if path.is_dir() else "file"
    return Finding(
        severity="error" if mode & stat.S_IWOTH else "warning",
        check="writable-by-others",
        path=str(path),
        message=f"this {kind} can be changed by {who} (mode {mode:o}), who could then make the "
        "server run their code as you",
        fix=f"chmod go-w {path} (doctor --fix does it)",
        fixable=True,
    )
