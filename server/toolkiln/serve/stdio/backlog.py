"""Backpressure for stdio: the requests taken in and not yet answered, bounded.

A client that sends calls and never reads their answers would otherwise grow the server
without bound: each answer waits in memory for a write the client never takes. The
stdio reader admits a request only while fewer than `limit` are unanswered; past that
it holds the next requests (a bounded amount) and, once that is full too, stops reading
stdin until the client reads. Responses to the server's own requests (an elicitation's
answer) and notifications (a cancellation) are still read while requests are held, so
a client whose calls wait on its own answers is not deadlocked.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import anyio
from mcp.shared.dispatcher import coerce_request_id

RequestId = str | int

# An answer as the SDK writes it: `{"jsonrpc":"2.0","id":<id>,"result":...}` (or "error").
_ANSWER_HEAD = re.compile(r'\{"jsonrpc":"2\.0","id":(-?\d+|"(?:[^"\\]|\\.)*"),"(?:result|error)":')


class Backlog:
    """Request ids taken in and not yet answered (a multiset: a client may reuse an id)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._ids: Counter[RequestId] = Counter()
        self._count = 0
        self._room = anyio.Event()

    @property
    def unanswered(self) -> int:
        return self._count

    def has_room(self) -> bool:
        return self._count < self.limit

    async def wait_for_room(self) -> None:
        while not self.has_room():
            self._room = anyio.Event()
            await self._room.wait()

    def admit(self, request_id: RequestId) -> None:
        self._ids[coerce_request_id(request_id)] += 1
        self._count += 1

    def settle(self, request_id: RequestId) -> None:
        """Answered, or cancelled by the client (the SDK answers no cancelled request)."""
        key = coerce_request_id(request_id)
        if self._ids[key] > 0:
            self._ids[key] -= 1
            self._count -= 1
            if not self._ids[key]:
                del self._ids[key]
            self._room.set()

    def settle_answer(self, text: str) -> None:
        """Settle the request that `text` (a line the SDK writes) answers, if it is an answer."""
        head = _ANSWER_HEAD.match(text)
        if head is not None:
            self.settle(json.loads(head.group(1)))
