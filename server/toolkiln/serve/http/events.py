"""Resumable streams over HTTP: each session's last messages, kept in memory.

With an event store the SDK numbers every SSE event and starts each stream with a
priming event, so a client whose connection drops mid-call reconnects with
`Last-Event-ID` and gets what it missed, the result included (SEP-1699). Memory is
bounded, in bytes, for each session and for all of them (event_budget.py): the oldest
events are forgotten first, and a client that comes back too late starts over. The
number of sessions is capped (`--max-sessions`); past it a new session is refused with
503 and a message that says why.

With `state.url` set, events are kept in Redis instead (replicas/event_store.py), stateless
servers keep them too, and a client resumes on any replica (replicas/resume.py).

Each session has its own store. The SDK names a stream by its request's id, which is the
same in every session, so one store shared by all sessions (what the session manager
does with the store it is given) would replay session A's request 7 to session B
resuming its own request 7, and would answer a `Last-Event-ID` of any session.
"""

from __future__ import annotations

import itertools
import logging
from collections import OrderedDict, deque
from typing import TYPE_CHECKING, Any
from uuid import uuid4

import anyio
from anyio.abc import TaskStatus
from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
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
from mcp.types import DEFAULT_NEGOTIATED_VERSION, INTERNAL_ERROR, JSONRPCMessage
from pydantic import TypeAdapter
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from toolkiln.serve.http.answers import ChoosingTransport, json_window
from toolkiln.serve.http.event_budget import DEFAULT_MAX_SESSIONS, EventBudget

if TYPE_CHECKING:
    from toolkiln.serve.replicas.event_store import SharedEvents

logger = logging.getLogger(__name__)

KEPT_EVENTS = 128  # per session (and bytes: event_budget.py)
EVENT_OVERHEAD = 200  # bytes an event costs beyond its JSON (its id, the tuple, the dict's slot)
LOST_STREAMS = 64  # streams of a session remembered as not resumable
_MESSAGE: TypeAdapter[JSONRPCMessage] = TypeAdapter(JSONRPCMessage)
RETRY_MILLISECONDS = 1000  # what clients are told to wait before reconnecting
# How long a stateless request's call may go on after its client has gone, for the
# client to resume it elsewhere (the tool's own timeout usually ends it first).
DETACHED_SECONDS = 6 * 60 * 60


class MemoryEventStore(EventStore):
    """One session's events, as JSON, within its share of an `EventBudget`."""

    def __init__(self, budget: EventBudget, kept: int = KEPT_EVENTS) -> None:
        self.budget = budget
        self.kept = kept
        self.kept_bytes = 0
        self._numbers = itertools.count(1)
        self._events: OrderedDict[str, tuple[StreamId, str | None, int]] = OrderedDict()
        self._lost: deque[StreamId] = deque(maxlen=LOST_STREAMS)  # an event of theirs was not kept
        self._closed = False
        budget.join(self)

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        event_id = str(next(self._numbers))
        text = None if message is None else message.model_dump_json(by_alias=True, exclude_unset=True)
        size = EVENT_OVERHEAD + (0 if text is None else len(text) * (1 if text.isascii() else 4))
        if self._closed or size > self.budget.per_session:  # never fits: this stream cannot be resumed
            self._lost.append(stream_id)
            return event_id
        self._events[event_id] = (stream_id, text, size)
        self.kept_bytes += size
        while len(self._events) > self.kept:
            self.budget.freed(self.forget_oldest())
        self.budget.added(self, size)
        return event_id

    def forget_oldest(self) -> int:
        if not self._events:
            return 0
        _, (_, _, size) = self._events.popitem(last=False)
        self.kept_bytes -= size
        return size

    def close(self) -> None:
        """The session ended: its events go, and their bytes are free for the others."""
        self._closed = True
        self.budget.leave(self)
        self._events.clear()
        self.kept_bytes = 0

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        known = self._events.get(last_event_id)
        if known is None or known[0] in self._lost:
            return None
        stream_id = known[0]
        after = int(last_event_id)
        for event_id, (stream, text, _) in list(self._events.items()):
            if int(event_id) > after and stream == stream_id and text is not None:
                await send_callback(EventMessage(_MESSAGE.validate_json(text), event_id))
        return stream_id


class ResumableSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager with an event store of its own for each session: in
    memory (`MemoryEventStore`), or in Redis when `shared` is given.

    The manager hands `self.event_store` to each session's transport as it opens it (and
    reads it nowhere else), so a new store on each read is a store per session, which
    goes when its session does. Stateless servers keep none (no session to resume),
    unless the events are shared: then each request has its store, and its call goes on
    after its client has gone, for the client to resume on any replica."""

    def __init__(
        self,
        *args: Any,
        shared: SharedEvents | None = None,
        budget: EventBudget | None = None,
        **kwargs: Any,
    ) -> None:
        self.shared = shared
        self.budget = budget or EventBudget()
        self.json_window = json_window()
        kwargs.setdefault("max_sessions", DEFAULT_MAX_SESSIONS)  # the SDK's 10,000 is too many here
        super().__init__(*args, **kwargs)

    @property
    def open_sessions(self) -> int:
        return len(self._server_instances)

    @property
    def event_store(self) -> EventStore | None:
        if self.shared is not None:
            return self.shared.store()
        return None if self.stateless else MemoryEventStore(self.budget)

    @event_store.setter
    def event_store(self, given: EventStore | None) -> None:
        """The constructor's `event_store`: unused, each session makes its own."""

    def _admit_session(self, requestor: AuthorizationContext | None) -> StreamableHTTPServerTransport | None:
        """The SDK's (mcp 2.3, `streamable_http_manager.py`), with a transport that answers
        in JSON when a request needs no stream (answers.py)."""
        if self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
            return None
        transport = ChoosingTransport(
            mcp_session_id=uuid4().hex,
            is_json_response_enabled=self.json_response,
            event_store=self.event_store,
            security_settings=self.security_settings,
            retry_interval=self.retry_interval,
            idle_timeout=self.session_idle_timeout,
        )
        transport.window = self.json_window
        session_id = transport.mcp_session_id
        assert session_id is not None
        if requestor is not None:
            self._session_owners[session_id] = requestor
        self._server_instances[session_id] = transport
        logger.info("Created new transport with session ID: %s", session_id)
        return transport

    async def _handle_stateful_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The SDK's, with a message that says why when no session can be opened (the SDK
        still checks under its lock, and answers a plain 503 in a race)."""
        opening = not any(name == b"mcp-session-id" for name, _ in scope.get("headers", ()))
        if opening and self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
            logger.warning("refused a new MCP session: %d are open (--max-sessions)", self.max_sessions)
            await self._refuse_session()(scope, receive, send)
            return
        await super()._handle_stateful_request(scope, receive, send)

    def _refuse_session(self) -> JSONResponse:
        idle = self.session_idle_timeout
        message = (
            f"This server has {self.max_sessions} MCP sessions open, its limit (toolkiln serve "
            "--max-sessions): end a session you no longer use (DELETE /mcp with its Mcp-Session-Id), "
            + (f"wait for an idle one to close (after {round(idle / 60)} minutes), " if idle else "")
            + "or ask the operator to raise --max-sessions."
        )
        body = {"jsonrpc": "2.0", "id": None, "error": {"code": INTERNAL_ERROR, "message": message}}
        return JSONResponse(body, status_code=503, headers={"Retry-After": "60"})

    async def _discard_session(self, session_id: str, transport: StreamableHTTPServerTransport) -> None:
        """The SDK's, and the session's events are freed at once (for the other sessions)."""
        await super()._discard_session(session_id, transport)
        store = getattr(transport, "_event_store", None)  # the SDK keeps it there (mcp 2.3)
        if isinstance(store, MemoryEventStore):
            store.close()

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
