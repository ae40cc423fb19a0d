"""Resumable streams over HTTP: each session's last messages, kept in memory.

With an event store the SDK numbers every SSE event and starts each stream with a
priming event, so a client whose connection drops mid-call reconnects with
`Last-Event-ID` and gets what it missed, the result included (SEP-1699). Memory is
bounded: the oldest events are forgotten first, and a client that comes back too late
starts over.

Each session has its own store. The SDK names a stream by its request's id, which is the
same in every session, so one store shared by all sessions (what the session manager
does with the store it is given) would replay session A's request 7 to session B
resuming its own request 7, and would answer a `Last-Event-ID` of any session.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.types import JSONRPCMessage

KEPT_EVENTS = 128  # per session
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


class ResumableSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager with a `MemoryEventStore` of its own for each session.

    The manager hands `self.event_store` to each session's transport as it opens it (and
    reads it nowhere else), so a new store on each read is a store per session, which
    goes when its session does. Stateless servers keep none: no session to resume."""

    @property
    def event_store(self) -> EventStore | None:
        return None if self.stateless else MemoryEventStore()

    @event_store.setter
    def event_store(self, given: EventStore | None) -> None:
        """The constructor's `event_store`: unused, each session makes its own."""
