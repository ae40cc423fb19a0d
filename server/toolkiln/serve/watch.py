"""Hot reload (`serve --watch`): when a watched file changes, rebuild and swap in the result.

The rebuild itself (discover, then build) is the caller's callback, run in a worker
thread: `serve` never imports the discovery stage. A rebuild that fails keeps the set
being served, and says why in the log. Calls in flight finish on the tools they started
with; clients of both eras are told the lists changed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import anyio
from watchfiles import Change, DefaultFilter, awatch

from toolkiln.runner import Registry
from toolkiln.serve.service import ToolService

logger = logging.getLogger(__name__)

Rebuild = Callable[[], Registry | None]


class _Filter(DefaultFilter):
    """The default (caches, editor swap files), plus hidden files: our own atomic writes
    go through hidden temporary files, and a change of one is not a change of a tool."""

    def __call__(self, change: Change, path: str) -> bool:
        return not Path(path).name.startswith(".") and super().__call__(change, path)


async def watch_and_reload(
    service: ToolService,
    folders: Sequence[Path],
    rebuild: Rebuild,
    *,
    on_reload: Callable[[], None] | None = None,
) -> None:
    """Rebuild on every batch of changes under `folders`, until cancelled."""
    watched = [folder for folder in folders if folder.is_dir()]
    logger.info("watching %s", ", ".join(map(str, watched)))
    async for changes in awatch(*watched, watch_filter=_Filter()):
        logger.info(
            "%d changes, rebuilding: %s", len(changes), ", ".join(sorted({p for _, p in changes})[:5])
        )
        if await reload(service, rebuild) is None:
            continue  # the failure is logged; the current set goes on serving
        if on_reload is not None:
            on_reload()


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
