"""Waiting for fds to be readable with `poll`, not `select`, whose fd numbers stop at
1,024: a busy server holds more (one per HTTP connection), and the spawner, a confined
cell and a call's pidfd get numbers past them. Standard library only: the spawner and
the cells import it as a sibling module."""

from __future__ import annotations

import math
import select
from collections.abc import Iterable


def readable(fds: Iterable[int], timeout: float | None = None) -> list[int]:
    """Those of `fds` that can be read (or have hung up) within `timeout` seconds; None:
    wait until one can."""
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    return [fd for fd, _ in poller.poll(None if timeout is None else math.ceil(max(timeout, 0) * 1000))]
