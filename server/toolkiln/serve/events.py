"""Resumable streams over HTTP: the last few hundred messages sent, kept in memory.

With an event store the SDK numbers every SSE event and starts each stream with a
priming event, so a client whose connection drops mid-call reconnects with
`Last-Event-ID` and gets what it missed, the result included (SEP-1699). Memory is
bounded: the oldest events are forgotten first, and a client that comes back too late
starts over.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp.types import JSONRPCMessage

KEPT_EVENTS = 512
RETRY_MILLISECONDS = 1000  # what clients are told to wait before reconnecting


class MemoryEventStore(EventStore):
    def __init__(self, kept: int = KEPT_EVENTS) -> None:
        self.kept = kept
        self._numbers = itertools.count(1)
        self._events: OrderedDict[str, tuple[StreamId, JSONRPCMessage | None]] = OrderedDict()

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        event_id = str(next(self._numbers))
        self._events[event_id] = (stream_id, message)
        while len(self._events) > self.kept:
            self._events.popitem(last=False)
        return event_id

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        known = self._events.get(last_event_id)
        if known is None:
            return None
        stream_id = known[0]
        after = int(last_event_id)
        for event_id, (stream, message) in list(self._events.items()):
            if int(event_id) > after and stream == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream_id
