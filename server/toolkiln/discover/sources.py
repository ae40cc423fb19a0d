"""What discovery never reads: the folders a tool may write (docs/security.md, "Where
tools come from").

A tool is published only from a file a trusted party put there. A folder a tool may
write (its workspace, its `writable` folders, run_command's) may hold what a client had
the tool write, so nothing in it is offered to the dialects: not the folder, not a
symlink that leads into it. The folders come from the per-tool configs and
`config/server.json` (`writable.py`); and a script that has no config yet gets the
default workspace, `{TOOL_DIR}/workspace`, when this run writes one, so that folder
beside it is not read either.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from toolkiln.conventions.base import Candidate
from toolkiln.discover.config_stamps import Stamp, read_config_stamps, stamp_of
from toolkiln.discover.index import DiscoveryIndex
from toolkiln.discover.report import NotTool
from toolkiln.writable import TOOL_DIR, WritableFolder, WritableFolders, read_config_fences

WRITABLE_KIND = "writable-folder"  # the `NotTool.kind` of what lies in a folder a tool may write
DEFAULT_WORKSPACE_NAME = "workspace"
_NEVER_READ = (
    'a folder a tool may write is never a source of tools (docs/security.md, "Where tools come from")'
)


class SourceFence:
    """The folders discovery leaves out, and why (each said once, as a `NotTool`)."""

    def __init__(self, writable: WritableFolders, configured: frozenset[str]) -> None:
        self.writable = writable
        self.configured = configured  # scripts with a config, relative to the tools folder

    @classmethod
    def load(
        cls,
        config_dir: Path,
        tools_dir: Path,
        index: DiscoveryIndex | None = None,
        configs: dict[str, Stamp | None] | None = None,
    ) -> SourceFence:
        """The fence the configs and config/server.json make now. With `index`, what the
        last run read is used again while every file it read from is as it was (by size,
        mtime and mode, `configs` when the caller has them: reading 1,000 configs costs
        more than the rest of a run that finds nothing changed), and this run's is handed
        to it to save."""
        configs = read_config_stamps(config_dir) if configs is None else configs
        stamps = _stamps(config_dir, tools_dir, configs)
        cached = index.last_fences if index is not None else None
        if index is not None and isinstance(cached, dict) and cached.get("stamps") == stamps:
            try:
                folders = [WritableFolder(*map(str, folder)) for folder in cached["folders"]]
                configured = frozenset(map(str, cached["scripts"]))
            except (KeyError, TypeError, ValueError):
                pass
            else:
                index.next_fences = cached
                return cls(WritableFolders(folders), configured)
        folders, configured = read_config_fences(config_dir, tools_dir)
        if index is not None:
            index.next_fences = {
                "stamps": stamps,
                "folders": [[f.path, f.writer, f.source, f.field] for f in folders],
                "scripts": sorted(configured),
            }
        return cls(WritableFolders(folders), configured)

    @classmethod
    def read_again(cls, config_dir: Path, tools_dir: Path, index: DiscoveryIndex) -> None:
        """After this run wrote configs: the fence the index saves is read from them as they
        are now, so that the next run, finding nothing changed, reads none of them (it would
        find every stamp moved and read the 1,000 configs again). This run's own fence, taken
        before it wrote anything, is not changed."""
        index.last_fences = None
        cls.load(config_dir, tools_dir, index)

    def refusal(self, path: Path, relative: str, *, real: Path | None = None) -> NotTool | None:
        """Why `path` (a folder, or a symlink) is not read, or None when it may be; `real`:
        its path with symlinks resolved, when the caller knows it (else it is resolved)."""
        folder = self.writable.writer_of(path, real=real) if self.writable else None
        if folder is None:
            return None
        return NotTool(relative or "./", WRITABLE_KIND, f"in {folder.describe()}: {_NEVER_READ}")

    def link_refusal(self, candidate: Candidate, tools_dir: Path) -> NotTool | None:
        """Why the symlink `link` is not read: it leads into a folder a tool may write, or
        into a folder named `workspace` in the tools folder (the default workspace of the
        tools beside it, which may have no config yet); or None."""
        relative = candidate.relative_path
        refusal = self.refusal(candidate.path, relative)
        if refusal is not None:
            return refusal
        target = Path(os.path.realpath(candidate.path))
        inside = target.relative_to(tools_dir).parts[:-1] if target.is_relative_to(tools_dir) else ()
        if DEFAULT_WORKSPACE_NAME in inside:
            return NotTool(
                relative,
                WRITABLE_KIND,
                f"a symlink to {target}, in a folder named {DEFAULT_WORKSPACE_NAME!r} in the tools folder: "
                f"the default workspace ({TOOL_DIR}/{DEFAULT_WORKSPACE_NAME}) of the tools beside it, "
                f"which they may write; {_NEVER_READ}",
            )
        return None

    def default_workspace(self, folder: Path, prefix: str, new_scripts: list[str]) -> NotTool | None:
        """Why `folder/workspace` is not read when scripts of `folder` that have no config
        yet (`new_scripts`, relative paths) will get it as their workspace; else None."""
        new = [script for script in new_scripts if script not in self.configured]
        if not new or not (folder / DEFAULT_WORKSPACE_NAME).is_dir():
            return None
        return NotTool(
            f"{prefix}{DEFAULT_WORKSPACE_NAME}/",
            WRITABLE_KIND,
            f"the default workspace ({TOOL_DIR}/{DEFAULT_WORKSPACE_NAME}) of the new tool of {new[0]}, "
            f"which it may write: {_NEVER_READ}",
        )


def _stamps(config_dir: Path, tools_dir: Path, configs: dict[str, Stamp | None]) -> dict[str, Any]:
    """What the fence is read from: each per-tool config (`configs`) and config/server.json
    (size, mtime, mode), and the tools folder it is taken from."""
    stamps: dict[str, Any] = {"tools_dir": os.path.abspath(tools_dir)}
    with contextlib.suppress(OSError):
        stamps["server.json"] = stamp_of(os.stat(config_dir / "server.json"))
    stamps.update((f"tools/{name}", stamp) for name, stamp in configs.items() if stamp is not None)
    return stamps
