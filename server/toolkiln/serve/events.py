"""Resumable streams over HTTP: each session's last messages, kept in memory.

With an event store the SDK numbers every SSE event and starts each stream with a
priming event, so a client whose connection drops mid-call reconnects with
`Last-Event-ID` and gets what it missed, the result included (SEP-1699). Memory is
bounded: the oldest events are forgotten first, and a client that comes back too late
starts over.

With `state.url` set, events are kept in Redis instead (shared_events.py), stateless
servers keep them too, and a client resumes on any replica (stream_resume.py).

Each session has its own store. The SDK names a stream by its request's id, which is the
same in every session, so one store shared by all sessions (what the session manager
does with the store it is given) would replay session A's request 7 to session B
resuming its own request 7, and would answer a `Last-Event-ID` of any session.
"""

from __future__ import annotations

import itertools
import logging
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskStatus
from mcp.server.connection import Connection
from mcp.server.runner import serve_connection
from mcp.server.streamable_http import (
    EventCallback,
    EventId,
    EventMessage,
    EventStore,
    StreamableHTTPServerTransport,
    StreamId,
)
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.transport_context import TransportContext
from mcp.types import DEFAULT_NEGOTIATED_VERSION, JSONRPCMessage
from starlette.types import Receive, Scope, Send

if TYPE_CHECKING:
    from toolkiln.serve.shared_events import SharedEvents

logger = logging.getLogger(__name__)

KEPT_EVENTS = 128  # per session
RETRY_MILLISECONDS = 1000  # what clients are told to wait before reconnecting
# How long a stateless request's call may go on after its client has gone, for the
# client to resume it elsewhere (the tool's own timeout usually ends it first).
DETACHED_SECONDS = 6 * 60 * 60


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
    """The SDK's session manager with an event store of its own for each session: in
    memory (`MemoryEventStore`), or in Redis when `shared` is given.

    The manager hands `self.event_store` to each session's transport as it opens it (and
    reads it nowhere else), so a new store on each read is a store per session, which
    goes when its session does. Stateless servers keep none (no session to resume),
    unless the events are shared: then each request has its store, and its call goes on
    after its client has gone, for the client to resume on any replica."""

    def __init__(self, *args: Any, shared: SharedEvents | None = None, **kwargs: Any) -> None:
        self.shared = shared
        super().__init__(*args, **kwargs)

    @property
    def event_store(self) -> EventStore | None:
        if self.shared is not None:
            return self.shared.store()
        return None if self.stateless else MemoryEventStore()

    @event_store.setter
    def event_store(self, given: EventStore | None) -> None:
        """The constructor's `event_store`: unused, each session makes its own."""

    async def _handle_stateless_request(
        self, protocol_version_hint: str | None, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """The SDK's stateless request (mcp 2.3, `streamable_http_manager.py`), with a
        shared event store, and a transport kept until its call has answered."""
        if self.shared is None:
            await super()._handle_stateless_request(protocol_version_hint, scope, receive, send)
            return
        store = self.shared.store()
        transport = StreamableHTTPServerTransport(
            mcp_session_id=None,
            is_json_response_enabled=self.json_response,
            event_store=store,
            security_settings=self.security_settings,
            retry_interval=self.retry_interval,
        )
        version = protocol_version_hint or DEFAULT_NEGOTIATED_VERSION

        async def run_server(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
            async with transport.connect() as (read_stream, write_stream):
                task_status.started()
                dispatcher: JSONRPCDispatcher[TransportContext] = JSONRPCDispatcher(
                    read_stream,
                    write_stream,
                    inline_methods=frozenset({"initialize"}),
                    transport_builder=lambda _: TransportContext(
                        kind="streamable-http", can_send_request=False
                    ),
                )
                try:
                    await serve_connection(
                        self.app,
                        dispatcher,
                        connection=Connection.from_envelope(version, None, None),
                        lifespan_state=self._lifespan_state,
                    )
                except Exception:
                    logger.exception("stateless request crashed")

        assert self._task_group is not None
        try:
            await self._task_group.start(run_server)
            await transport.handle_request(scope, receive, send)
            # The client may have gone mid-call; it may resume elsewhere, so the call goes on.
            with anyio.move_on_after(DETACHED_SECONDS):
                await store.wait_answered()
        finally:
            with anyio.CancelScope(shield=True):
                await transport.terminate()
