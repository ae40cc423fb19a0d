"""Hot reload (`serve --watch`): when a watched file changes, rebuild and swap in the result.

The rebuild itself (discover, then build) is the caller's callback, run in a worker
thread: `serve` never imports the discovery stage. A rebuild that fails keeps the set
being served, and says why in the log. Calls in flight finish on the tools they started
with; clients of both eras are told the lists changed.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import anyio
from watchfiles import Change, DefaultFilter, awatch

from toolkiln.runner import Registry
from toolkiln.serve.service import ToolService
from toolkiln.writable import WritableFolders

logger = logging.getLogger(__name__)

Rebuild = Callable[[], Registry | None]


class _Filter(DefaultFilter):
    """The default (caches, editor swap files), plus hidden files: our own atomic writes
    go through hidden temporary files, and a change of one is not a change of a tool.
    Of the folders of single files (config/ for config/server.json), only those files:
    not the tools.json a rebuild writes there, nor the audit log. And nothing in a folder
    a tool may write (`writable`, the catalog's now): what a tool writes is never a
    source of tools, so it starts no rebuild (which would not read it either)."""

    def __init__(
        self, folders: Sequence[Path], files: Sequence[Path], writable: Callable[[], WritableFolders]
    ) -> None:
        super().__init__()
        self.folders = folders
        self.files = set(files)
        self.writable = writable

    def __call__(self, change: Change, path: str) -> bool:
        changed = _absolute(Path(path))
        if changed.name.startswith(".") or not super().__call__(change, path):
            return False
        if changed not in self.files and not any(changed.is_relative_to(folder) for folder in self.folders):
            return False
        return self.writable().writer_of(changed) is None


async def watch_and_reload(
    service: ToolService,
    folders: Sequence[Path],
    rebuild: Rebuild,
    *,
    files: Sequence[Path] = (),
    on_reload: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Rebuild on every batch of changes under `folders`, or of one of `files` (which
    need not exist yet: config/server.json), until cancelled; after each rebuild served,
    `on_reload` (which tells the other replicas, with a state URL)."""
    trees = [_absolute(folder) for folder in folders if folder.is_dir()]
    singles = [_absolute(file) for file in files if file.parent.is_dir()]
    roots = _outermost([*trees, *(file.parent for file in singles)])
    logger.info("watching %s", ", ".join(map(str, [*trees, *singles])))
    watch_filter = _Filter(trees, singles, lambda: service.registry.writable_folders())
    async for changes in awatch(*roots, watch_filter=watch_filter):
        logger.info(
            "%d changes, rebuilding: %s", len(changes), ", ".join(sorted({p for _, p in changes})[:5])
        )
        if await reload(service, rebuild) is None:
            continue  # the failure is logged; the current set goes on serving
        if on_reload is not None:
            await on_reload()


def _absolute(path: Path) -> Path:
    return Path(os.path.abspath(path))


def _outermost(folders: list[Path]) -> list[Path]:
    """Each folder once, and none inside another (a change would be reported twice)."""
    unique = sorted(set(folders))
    return [f for f in unique if not any(f != other and f.is_relative_to(other) for other in unique)]


async def reload(service: ToolService, rebuild: Rebuild) -> dict[str, bool] | None:
    """Rebuild (in a worker thread) and swap the result in, telling clients what changed;
    None when the rebuild failed and the current set goes on serving. The watcher and the
    dashboard's switches both come through here."""
    async with service.reloading:  # else two rebuilds could swap in the older last
        registry = await anyio.to_thread.run_sync(rebuild)
        if registry is None:
            return None
        changed = service.swap(registry)
    if any(changed.values()):
        await service.broadcaster.lists_changed(**changed)
        logger.info(
            "now serving %d tools (%s changed)",
            len(registry.tools),
            ", ".join(k for k, v in changed.items() if v),
        )
    return changed
