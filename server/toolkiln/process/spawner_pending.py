"""What is awaited of a spawner (`spawner_link.py`): each answer or exit still to come
(`Pending`), and the spawner gone before it came (`SpawnerGone`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


class SpawnerGone(Exception):
    """The spawner stopped answering (it was killed). `unsent`: the request never reached
    it (it was gone before), so asking a new spawner cannot do the same thing twice."""

    def __init__(self, message: str, *, unsent: bool = True) -> None:
        super().__init__(message)
        self.unsent = unsent


class Pending:
    """An answer, or a main process's exit, still to come; `done` once it has come (`value`,
    the fds that came with it), or once the spawner has gone (`gone`). A start holds the
    `exit` of the process it starts from the moment it is asked (done at once, with no
    value, when the start fails)."""

    __slots__ = ("done", "exit", "fds", "gone", "start", "value", "waiters")

    def __init__(self, start: bool = False) -> None:
        self.start = start
        self.done = False
        self.value: Any = None
        self.fds: list[int] = []
        self.gone: SpawnerGone | None = None
        self.exit: Pending | None = None
        # What runs once it is done, on which event loop: a waiting task's wake-up, a callback
        self.waiters: list[tuple[asyncio.AbstractEventLoop, Callable[[], object]]] = []


def answer_of(pending: Pending) -> tuple[tuple[Any, ...], list[int]]:
    """A done request's answer and fds; SpawnerGone when the spawner went first."""
    if pending.gone is not None:
        raise pending.gone
    return pending.value, pending.fds
