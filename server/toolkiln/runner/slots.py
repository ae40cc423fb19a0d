"""How many tool processes run at once: a slot from the server-wide cap, and one from a
tool's own `max_concurrency` when it sets one, taken before a call runs.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from toolkiln.model import CompiledTool


class CallSlots:
    """The concurrency caps of one runner: `max_concurrency` processes in all, and each
    tool's own cap. A call beyond a cap waits for a slot."""

    def __init__(self, max_concurrency: int) -> None:
        self.max_concurrency = max_concurrency
        self._slots: anyio.CapacityLimiter | None = None
        self._tool_slots: dict[str, anyio.CapacityLimiter] = {}

    @asynccontextmanager
    async def hold(self, tool: CompiledTool, timeout: float) -> AsyncIterator[bool]:
        """Take `tool`'s slots, waiting at most `timeout` seconds; yields whether all were
        taken, and gives back those that were on leaving."""
        held: list[anyio.CapacityLimiter] = []
        limiters = self._limiters_for(tool)
        try:
            # Free slots are taken at once: no timer is set, and no turn of the event loop
            # is given away (`acquire` yields to it even when a slot is free).
            for limiter in limiters:
                try:
                    limiter.acquire_nowait()
                except anyio.WouldBlock:
                    break
                held.append(limiter)
            if len(held) < len(limiters):
                with anyio.move_on_after(timeout):
                    for limiter in limiters[len(held) :]:
                        await limiter.acquire()
                        held.append(limiter)
            yield len(held) == len(limiters)
        finally:
            for limiter in reversed(held):
                limiter.release()

    def _limiters_for(self, tool: CompiledTool) -> list[anyio.CapacityLimiter]:
        if self._slots is None:  # made on first use: a limiter belongs to a running event loop
            self._slots = anyio.CapacityLimiter(self.max_concurrency)
        limiters = [self._slots]
        if tool.max_concurrency:
            limiter = self._tool_slots.get(tool.name)
            if limiter is None:
                limiter = self._tool_slots[tool.name] = anyio.CapacityLimiter(tool.max_concurrency)
            elif limiter.total_tokens != tool.max_concurrency:  # a rebuilt catalog changed the cap
                limiter.total_tokens = tool.max_concurrency
            limiters.insert(0, limiter)
        return limiters
