"""Resumable streams kept in Redis (`state.url`), so a client resumes on any replica.

Each stream (one POST's call, or a session's GET stream) is a Redis stream of its own,
`<prefix>events:<token>`, where `token` is 128 random bits minted for it. An event id
is `<token>.<entry>`: the id the client holds is the only way to name the stream, so a
client cannot read another's by guessing (ids are not counters, and the SDK's stream
names, request ids, never appear in a key). Each entry holds the message (what a tool
printed included: the same trust as the task store, docs/security.md), the stream's
name and the replica that writes it; with the shared secret the message is sealed for
that stream, name and replica (sealed_messages.py): an entry written by hand, or copied
from another stream, is never sent to a client (a warning in the log). A stream keeps
its last `KEPT_EVENTS` entries and goes `TTL_SECONDS` after its last one.

When Redis cannot be reached, events are not kept: a store hands out ids that name no
stream (`<token>.unkept`), the call itself goes on, and a client that resumes with
one is told its events were not kept (replicas/resume.py), never left waiting. After a
failure Redis is not tried again for `RETRY_SECONDS`, so a call is not slowed by a
connect timeout per message.
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import anyio
import redis.asyncio
import redis.exceptions
from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp.types import JSONRPCError, JSONRPCMessage, JSONRPCResponse, jsonrpc_message_adapter
from pydantic import ValidationError

from toolkiln.model.state import redact_url
from toolkiln.serve.sealed_messages import SealError, Seals, beats

logger = logging.getLogger(__name__)

KEPT_EVENTS = 512  # per stream: a client that fell further behind starts over
TTL_SECONDS = 15 * 60  # after a stream's last event
RETRY_SECONDS = 5.0  # after Redis failed, events are not kept for this long
STREAMS_PER_STORE = 1024  # stream names a session's store remembers (a session's requests)
CONNECT_SECONDS = 2.0
ANSWER_SECONDS = 5.0  # more than BLOCK_MILLISECONDS
BLOCK_MILLISECONDS = 1000  # one wait for new events, between checks that the writer lives
WRITER_LOOKBACK = 16  # entries looked at, from the last, for one sealed by the stream's writer
UNKEPT = "unkept"
_EVENT_ID = re.compile(r"(?P<token>[0-9a-f]{32})\.(?P<entry>\d{1,20}-\d{1,20}|unkept)")


class StreamGone(Exception):
    """The stream an event id names is not in Redis (expired, trimmed or never kept)."""


@dataclass(frozen=True)
class Cursor:
    """Where a client is in a stream: from its `Last-Event-ID`."""

    token: str
    entry: str  # a Redis stream entry id, or UNKEPT

    @classmethod
    def parse(cls, event_id: str) -> Cursor | None:
        match = _EVENT_ID.fullmatch(event_id.strip())
        return cls(match["token"], match["entry"]) if match else None


class SharedEvents:
    """The Redis connection and settings of a server's shared event stores."""

    def __init__(self, url: str, *, prefix: str, instance: str, seals: Seals | None = None) -> None:
        self.where = redact_url(url)
        self.prefix = prefix
        self.instance = instance  # this server's name in the task store's heartbeats
        self.seals = seals  # what heartbeats are sealed with (sealed_messages.py)
        self.client: redis.asyncio.Redis = redis.asyncio.Redis.from_url(
            url,
            socket_connect_timeout=CONNECT_SECONDS,
            socket_timeout=ANSWER_SECONDS,
            decode_responses=True,
        )
        self._down_until = 0.0

    def store(self) -> RedisEventStore:
        """A store for one session (or one stateless request)."""
        return RedisEventStore(self)

    def key(self, token: str) -> str:
        return f"{self.prefix}events:{token}"

    async def runs(self, instance: str) -> bool:
        """Whether the replica `instance` beats (its heartbeat, kept by the task service
        while its server runs: tasks/owners.py)."""
        return beats(self.seals, instance, await self.client.get(f"{self.prefix}owner:{instance}"))

    @property
    def down(self) -> bool:
        return time.monotonic() < self._down_until

    def failed(self, error: Exception) -> None:
        if not self.down:
            logger.warning(
                "resumable streams: Redis at %s cannot be reached (%s); events are not kept "
                "for %.0f s: a client that loses its connection starts over",
                self.where,
                error,
                RETRY_SECONDS,
            )
        self._down_until = time.monotonic() + RETRY_SECONDS

    async def close(self) -> None:
        await self.client.aclose()


class RedisEventStore(EventStore):
    """The SDK's `EventStore` in Redis: what a session's (or a request's) transport keeps."""

    def __init__(self, shared: SharedEvents) -> None:
        self.shared = shared
        self._tokens: OrderedDict[StreamId, str] = OrderedDict()
        self.primed: set[StreamId] = set()  # streams a client was told it may resume
        self.answered: set[StreamId] = set()  # streams whose response came
        self._answer = anyio.Event()

    def token_of(self, stream_id: StreamId) -> str:
        token = self._tokens.get(stream_id)
        if token is None:
            token = self._tokens[stream_id] = secrets.token_hex(16)
            while len(self._tokens) > STREAMS_PER_STORE:
                self._tokens.popitem(last=False)
        return token

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        token = self.token_of(stream_id)
        if message is None:
            self.primed.add(stream_id)
        elif _is_answer(message):
            self.answered.add(stream_id)
            self._answer.set()
            self._answer = anyio.Event()
        if self.shared.down:
            return f"{token}.{UNKEPT}"
        text = "" if message is None else message.model_dump_json(by_alias=True, exclude_unset=True)
        if self.shared.seals is not None:
            text = self.shared.seals.seal(
                "stream-event", text, about=_about(token, stream_id, self.shared.instance)
            )
        fields = {"m": text, "s": stream_id, "o": self.shared.instance}
        key = self.shared.key(token)
        try:
            async with self.shared.client.pipeline(transaction=True) as pipe:
                pipe.xadd(key, fields, maxlen=KEPT_EVENTS, approximate=False)  # type: ignore[arg-type]
                pipe.expire(key, TTL_SECONDS)
                entry, _ = await pipe.execute()
        except (redis.exceptions.RedisError, OSError) as error:
            self.shared.failed(error)
            return f"{token}.{UNKEPT}"
        return f"{token}.{entry}"

    async def wait_answered(self) -> None:
        """Until every stream a client may resume has its response (what a stateless
        request waits for once its client has gone, so the call is not cut short)."""
        while self.primed - self.answered:
            await self._answer.wait()

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        """What the SDK calls for a resumption on the replica of the session; cross-replica
        (and stateless) resumptions are served by replicas/resume.py instead."""
        cursor = Cursor.parse(last_event_id)
        if cursor is None or cursor.entry == UNKEPT:
            return None
        try:
            for entry, message, _ in await read_after(self.shared, cursor):
                if message is not None:
                    await send_callback(EventMessage(message, f"{cursor.token}.{entry}"))
            return (await writer_of(self.shared, cursor))[1]
        except (StreamGone, redis.exceptions.RedisError, OSError):
            return None


Event = tuple[str, JSONRPCMessage | None, str]  # (entry id, message or None, stream name)


async def read_after(shared: SharedEvents, cursor: Cursor, *, block: bool = False) -> list[Event]:
    """The events after `cursor` (with `block`, waiting up to BLOCK_MILLISECONDS for the
    first). `StreamGone` when the stream is not there, or no longer holds `cursor`."""
    key = shared.key(cursor.token)
    if block:
        answer: Any = await shared.client.xread(
            {key: cursor.entry}, count=KEPT_EVENTS, block=BLOCK_MILLISECONDS
        )
        entries = answer[0][1] if answer else []  # [[key, entries]] (RESP2, the default)
        if not entries and not await shared.client.exists(key):
            raise StreamGone(cursor.token)
        return [_event(shared, cursor.token, entry, fields) for entry, fields in entries]
    async with shared.client.pipeline(transaction=True) as pipe:
        pipe.xrange(key, min=cursor.entry, max="+", count=1)  # the client's own event, if kept
        pipe.xrange(key, min=f"({cursor.entry}", max="+")
        held, after = await pipe.execute()
    if not held or held[0][0] != cursor.entry:
        raise StreamGone(cursor.token)  # trimmed past it, expired, or never there
    return [_event(shared, cursor.token, entry, fields) for entry, fields in after]


async def writer_of(shared: SharedEvents, cursor: Cursor) -> tuple[str, str]:
    """The instance that writes the stream, and the stream's name (from its last entry
    sealed for it: one added by hand names no writer). `StreamGone` when the stream is
    not there."""
    last: Any = await shared.client.xrevrange(shared.key(cursor.token), count=WRITER_LOOKBACK)
    for _, fields in last:
        writer, stream = str(fields.get("o", "")), str(fields.get("s", ""))
        if shared.seals is None or _sealed(shared.seals, cursor.token, fields):
            return writer, stream
    raise StreamGone(cursor.token)


def _event(shared: SharedEvents, token: str, entry: str, fields: dict[str, str]) -> Event:
    """The entry's message; None when there is none, or (said in the log) when it is not
    sealed for this stream or not a message."""
    text, stream = fields.get("m", ""), fields.get("s", "")
    try:
        if shared.seals is not None:
            text = _open(shared.seals, token, fields)
        message = jsonrpc_message_adapter.validate_json(text) if text else None
    except (SealError, ValidationError) as error:
        logger.warning("skipped an event of stream %s that is not one: %s", token, str(error)[:200])
        message = None
    return entry, message, stream


def _open(seals: Seals, token: str, fields: dict[str, str]) -> str:
    about = _about(token, fields.get("s", ""), fields.get("o", ""))
    return seals.open("stream-event", fields.get("m", ""), about=about).payload


def _sealed(seals: Seals, token: str, fields: dict[str, str]) -> bool:
    try:
        _open(seals, token, fields)
    except SealError:
        return False
    return True


def _about(token: str, stream: str, instance: str) -> str:
    return f"{token}\0{stream}\0{instance}"


def _is_answer(message: JSONRPCMessage | None) -> bool:
    return isinstance(message, JSONRPCResponse | JSONRPCError)
