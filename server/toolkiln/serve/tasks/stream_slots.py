"""How many task streams (`subscriptions/listen` with `taskIds`) may be open, and which one
closes to make room: a new stream is always let in.

A stream is counted under the client's address: the peer of its connection, or the
address a trusted proxy gave (`--forwarded-allow-ips`), never a header the client picks
(`Mcp-Session-Id` is not validated on a stateless server, nor on any 2026-07-28 request).
Every holder of one token is one principal, so the principal cannot tell clients apart;
the address is the one thing a client cannot choose.

- `PER_CLIENT` streams an address: its next one closes its own oldest.
- `OVERALL` streams in all: the next one closes the oldest stream of the address that
  holds the most (a client holding many loses its own first; one holding a single stream
  loses it only when every address holds one).

So a client that opens streams without end closes its own, and cannot keep another's
new stream out. Clients that share an address (every local client of a loopback server)
share its `PER_CLIENT`: there the oldest stream goes first, whoever opened it. A closed
stream ends as a stream whose backlog filled does: its result comes, and the client
listens again if it still wants to.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from mcp.server.context import ServerRequestContext

logger = logging.getLogger(__name__)

PER_CLIENT = 16
OVERALL = 256


def client_address(ctx: ServerRequestContext[Any, Any]) -> str:
    """The address a stream is counted under: its connection's peer (as a trusted proxy
    gave it), "stdio" for the one stdio client."""
    request = ctx.request
    if request is None:
        return "stdio"
    client = getattr(request, "client", None)
    return str(client.host) if client is not None else "unknown"


@dataclass
class _Slot:
    number: int
    close: Callable[[], None]


@dataclass
class StreamSlots:
    per_client: int = PER_CLIENT
    overall: int = OVERALL
    _open: dict[str, dict[int, _Slot]] = field(default_factory=dict)  # by address, oldest first
    _numbers: Iterator[int] = field(default_factory=itertools.count)

    @property
    def count(self) -> int:
        return sum(map(len, self._open.values()))

    def held_by(self, client: str) -> int:
        return len(self._open.get(client, {}))

    @contextmanager
    def slot(self, client: str, close: Callable[[], None]) -> Iterator[None]:
        """Hold a slot for `client`'s stream while the block runs; `close` ends the stream
        when another needs its slot."""
        if self.held_by(client) >= self.per_client:
            self._close_oldest(client, f"its address holds {self.per_client} task streams")
        elif self.count >= self.overall:
            busiest = max(self._open, key=lambda each: (len(self._open[each]), -min(self._open[each])))
            self._close_oldest(busiest, f"{self.overall} task streams are open")
        number = next(self._numbers)
        self._open.setdefault(client, {})[number] = _Slot(number, close)
        try:
            yield
        finally:
            self._release(client, number)

    def _close_oldest(self, client: str, why: str) -> None:
        slots = self._open[client]
        oldest = slots[min(slots)]
        self._release(client, oldest.number)
        logger.info("closing the oldest task stream of %s to make room: %s", client, why)
        oldest.close()

    def _release(self, client: str, number: int) -> None:
        slots = self._open.get(client)
        if slots is None or slots.pop(number, None) is None:
            return
        if not slots:
            del self._open[client]
