"""How many bytes of SSE events the HTTP sessions may keep for resuming, each and together.

A stateful session keeps the events it sent, so that a client whose connection dropped
gets what it missed (events.py). What an event weighs is its JSON (a result of 250 KiB
weighs 250 KiB), so a count of events bounds nothing: the bound is in bytes. Each
session may keep `per_session` bytes, its oldest events forgotten first; all sessions
together `overall` bytes, the session keeping the most losing its oldest first (a
session that keeps little is never made to forget for a big one). An event bigger than
a session's budget is not kept, and its stream cannot be resumed: the client starts
over, as one that came back too late does.

The overall budget fits the machine: an eighth of its memory, between `MIN_OVERALL` and
`MAX_OVERALL`; and the number of sessions is capped too (`max_sessions`), each costing
some memory of its own however few events it keeps.
"""

from __future__ import annotations

import logging
import os
from typing import Protocol

logger = logging.getLogger(__name__)

PER_SESSION_BYTES = 4 * 1024 * 1024
MIN_OVERALL = 32 * 1024 * 1024
MAX_OVERALL = 512 * 1024 * 1024
MEMORY_SHARE = 8  # the overall budget: at most this fraction of the machine's memory
DEFAULT_MAX_SESSIONS = 1000  # the SDK's own default is 10,000 (idle ones live 30 minutes)


class Keeper(Protocol):
    """A session's event store, as the budget sees it."""

    kept_bytes: int

    def forget_oldest(self) -> int:
        """Forget the oldest event kept; the bytes freed (0: nothing was kept)."""
        ...


def machine_memory() -> int | None:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def default_overall() -> int:
    memory = machine_memory()
    if memory is None:
        return MIN_OVERALL
    return max(MIN_OVERALL, min(MAX_OVERALL, memory // MEMORY_SHARE))


class EventBudget:
    """The bytes the sessions' event stores keep, counted; what frees them when over."""

    def __init__(self, overall: int | None = None, per_session: int = PER_SESSION_BYTES) -> None:
        self.overall = default_overall() if overall is None else overall
        self.per_session = min(per_session, self.overall)
        self.used = 0
        self._keepers: dict[int, Keeper] = {}

    def join(self, keeper: Keeper) -> None:
        self._keepers[id(keeper)] = keeper

    def freed(self, size: int) -> None:
        """A store forgot `size` bytes on its own (its count of events was reached)."""
        self.used -= size

    def leave(self, keeper: Keeper) -> None:
        """A session ended: what its store kept is free."""
        if self._keepers.pop(id(keeper), None) is not None:
            self.used -= keeper.kept_bytes

    def added(self, keeper: Keeper, size: int) -> None:
        """`keeper` now keeps `size` more bytes: make room, its own first, then overall."""
        self.used += size
        while keeper.kept_bytes > self.per_session:
            freed = keeper.forget_oldest()
            if not freed:
                break
            self.used -= freed
        while self.used > self.overall:
            biggest = max(self._keepers.values(), key=lambda each: each.kept_bytes)
            freed = biggest.forget_oldest()
            if not freed:
                break
            self.used -= freed
