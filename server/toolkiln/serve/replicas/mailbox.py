"""Messages between replicas through Redis (`state.url`): a client's answers carried to
the replica whose script waits for them, and that replica's outcome carried back.

Each replica takes the messages sent to it from its own list, `<prefix>relay:<instance>`
(the instance is the server's one name: serve/tasks/owners.py). A sender pushes

    {"v": 1, "id": <128 random bits, hex>, "kind": "resume" | "task-update", "body": {...}}

and waits on `<prefix>relay:reply:<id>`, where the replica pushes `{"accepted": true}`
as it takes the message, then `{"outcome": {...}}`. The sender waits in rounds of
WAIT_SECONDS and, between rounds, looks at the replica's heartbeat
(`<prefix>owner:<instance>`): a replica that stopped (crashed, killed) is told to the
client at once, never waited for. A message not taken within ACCEPT_SECONDS is taken
back (LREM), so it cannot act later with nobody to hear it.

Both are sealed with the shared secret (sealed_messages.py): a message for the
replica whose inbox it is in, issued at most MESSAGE_SECONDS ago and taken once (its id
is remembered); a reply for the message it answers. What does not open is dropped
with a warning: whoever can write to Redis cannot hand a waiting script answers, or a
client an outcome. So the relay runs only with `state.secret_file`. The heartbeat
looked at is sealed too. And every message and reply is parsed strictly (pydantic
models that forbid other keys, sizes at most MAX_MESSAGE_BYTES): nothing in one is
executed, and none names a file or a key other than the ones computed here.
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeVar

import anyio
import redis.asyncio
import redis.exceptions
from anyio.abc import TaskStatus
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolkiln.model.state import redact_url
from toolkiln.serve.sealed_messages import SKEW_SECONDS, SealError, Seals, SeenOnce, beats

logger = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 8 * 1024 * 1024  # a relayed message or reply, in its JSON
WAIT_SECONDS = 1.0  # one wait for a reply (or a message), between looks at the heartbeat
ACCEPT_SECONDS = 10.0  # the replica named takes a message within this, or it is taken back
KEEP_SECONDS = 60  # a list nobody reads is dropped after this
RETRY_SECONDS = 2.0  # after Redis failed, the listener tries again
CONNECT_SECONDS = 2.0
ANSWER_SECONDS = 5.0  # more than WAIT_SECONDS
MESSAGE_SECONDS = ACCEPT_SECONDS + 2 * WAIT_SECONDS  # a message older than this is refused
INSTANCE = re.compile(r"[0-9a-f]{24}")  # owners.new_instance()

Kind = Literal["resume", "task-update"]
Handler = Callable[[Kind, dict[str, Any]], Awaitable[dict[str, Any]]]
_Model = TypeVar("_Model", bound=BaseModel)


class RelayError(Exception):
    """The message could not be carried, or its replica stopped; the text is for the client,
    `code` the JSON-RPC error's."""

    def __init__(self, message: str, code: int = INTERNAL_ERROR) -> None:
        super().__init__(message)
        self.code = code


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Message(_Strict):
    v: Literal[1]
    id: str = Field(pattern=r"^[0-9a-f]{32}$")
    kind: Kind
    body: dict[str, Any]


class Reply(_Strict):
    accepted: bool = False
    outcome: dict[str, Any] | None = None


class Relay:
    """This replica's end of the relay: `send` to another, `serve` what others send."""

    def __init__(self, url: str, *, prefix: str, instance: str, seals: Seals) -> None:
        self.where = redact_url(url)
        self.prefix = prefix
        self.instance = instance
        self.seals = seals
        self._taken = SeenOnce(MESSAGE_SECONDS + 2 * SKEW_SECONDS)  # ids of the messages taken
        self.client: redis.asyncio.Redis = redis.asyncio.Redis.from_url(
            url,
            socket_connect_timeout=CONNECT_SECONDS,
            socket_timeout=ANSWER_SECONDS,
            decode_responses=True,
        )

    def _inbox(self, instance: str) -> str:
        return f"{self.prefix}relay:{instance}"

    def _reply_key(self, message_id: str) -> str:
        return f"{self.prefix}relay:reply:{message_id}"

    def _owner_key(self, instance: str) -> str:
        return f"{self.prefix}owner:{instance}"  # the heartbeat (tasks/redis_store.py)

    async def send(self, instance: str, kind: Kind, body: dict[str, Any]) -> dict[str, Any]:
        """The outcome the replica `instance` replies to `body`; `RelayError` when it has
        stopped, does not take the message, or Redis fails."""
        if not INSTANCE.fullmatch(instance):
            raise RelayError("the call names no replica of this deployment")
        message_id = secrets.token_hex(16)
        message = Message(v=1, id=message_id, kind=kind, body=body).model_dump_json()
        if len(message.encode()) > MAX_MESSAGE_BYTES:
            raise RelayError(f"the answers are too large to relay (over {MAX_MESSAGE_BYTES} bytes)")
        sealed = self.seals.seal("relay-message", message, about=instance)
        try:
            return await self._send(instance, sealed, message_id)
        except (redis.exceptions.RedisError, OSError) as error:
            raise RelayError(
                f"the shared state store (Redis at {self.where}) cannot be reached to relay the "
                f"answers ({type(error).__name__})"
            ) from None

    async def _send(self, instance: str, message: str, message_id: str) -> dict[str, Any]:
        gone = RelayError(
            "the replica running this call has stopped (it crashed, was killed or restarted), "
            "and the call's script with it; call the tool again",
            INVALID_PARAMS,
        )
        if not await self._runs(instance):
            raise gone
        reply_key, inbox = self._reply_key(message_id), self._inbox(instance)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.rpush(inbox, message)
            pipe.expire(inbox, KEEP_SECONDS)
            await pipe.execute()
        accepted, deadline = False, time.monotonic() + ACCEPT_SECONDS
        while True:
            got: Any = await self.client.blpop([reply_key], timeout=WAIT_SECONDS)
            if got is not None:
                reply = self._open_reply(got[1], message_id)
                if reply is None:
                    continue  # not the replica's: wait on for its own
                if reply.outcome is not None:
                    return reply.outcome
                accepted = True
                continue
            if not await self._runs(instance):
                raise gone
            if not accepted and time.monotonic() > deadline and await self.client.lrem(inbox, 1, message):
                raise RelayError(
                    f"the replica running this call did not take its answers within {ACCEPT_SECONDS:g} s "
                    "(it is overloaded, or cannot reach Redis); nothing was answered, try again"
                )

    async def _runs(self, instance: str) -> bool:
        return beats(self.seals, instance, await self.client.get(self._owner_key(instance)))

    def _open_reply(self, text: str, message_id: str) -> Reply | None:
        try:
            opened = self.seals.open("relay-reply", text, about=message_id, max_age=KEEP_SECONDS)
        except SealError as error:
            logger.warning("dropped a reply to a relayed message that does not verify: %s", error)
            return None
        reply = _parse(Reply, opened.payload)
        if reply is None:
            logger.warning("dropped a reply to a relayed message that is not one (%d bytes)", len(text))
        return reply

    async def serve(
        self, handle: Handler, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Take the messages sent to this replica and reply to each (`handle` gives the
        outcome), until cancelled; through Redis outages, retrying."""
        inbox, failing = self._inbox(self.instance), False
        async with anyio.create_task_group() as group:
            task_status.started()
            while True:
                try:
                    got: Any = await self.client.blpop([inbox], timeout=WAIT_SECONDS)
                except (redis.exceptions.RedisError, OSError) as error:
                    if not failing:
                        logger.warning(
                            "answers relayed by other replicas do not reach this one while Redis at %s "
                            "cannot be reached (%s); retrying",
                            self.where,
                            error,
                        )
                    failing = True
                    await anyio.sleep(RETRY_SECONDS)
                    continue
                failing = False
                if got is not None:
                    group.start_soon(self._reply, handle, got[1])

    def _open_message(self, text: str) -> Message | None:
        """The message `text` seals for this replica, the first time it comes; else None,
        said in the log."""
        try:
            opened = self.seals.open("relay-message", text, about=self.instance, max_age=MESSAGE_SECONDS)
        except SealError as error:
            logger.warning("dropped a relayed message that does not verify: %s", error)
            return None
        message = _parse(Message, opened.payload)
        if message is None:
            logger.warning("dropped a relayed message that is not one (%d bytes)", len(text))
            return None
        if not self._taken.first(message.id):
            logger.warning("dropped a relayed message taken before (replayed): %s", message.id)
            return None
        return message

    async def _reply(self, handle: Handler, text: str) -> None:
        message = self._open_message(text)
        if message is None:
            return
        key = self._reply_key(message.id)
        try:
            await self._push(key, Reply(accepted=True), message.id)
            try:
                outcome = await handle(message.kind, message.body)
            except Exception:  # never lost: the sender hears of it
                logger.exception("a relayed %s failed inside toolkiln", message.kind)
                outcome = {"error": {"code": -32603, "message": "The relayed call failed inside toolkiln."}}
            reply = Reply(outcome=outcome)
            if len(reply.model_dump_json().encode()) > MAX_MESSAGE_BYTES:
                too_large = f"The call's outcome is too large to relay (over {MAX_MESSAGE_BYTES} bytes)."
                reply = Reply(outcome={"error": {"code": -32603, "message": too_large}})
            await self._push(key, reply, message.id)
        except (redis.exceptions.RedisError, OSError) as error:
            logger.warning(
                "the reply to a relayed %s was lost: Redis at %s: %s", message.kind, self.where, error
            )

    async def _push(self, key: str, reply: Reply, message_id: str) -> None:
        text = self.seals.seal("relay-reply", reply.model_dump_json(exclude_defaults=True), about=message_id)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.rpush(key, text)
            pipe.expire(key, KEEP_SECONDS)
            await pipe.execute()

    async def close(self) -> None:
        await self.client.aclose()


def _parse(model: type[_Model], text: str) -> _Model | None:
    """`text` as `model`, or None when it is too large or not one."""
    if len(text) > MAX_MESSAGE_BYTES:
        return None
    try:
        return model.model_validate_json(text)
    except ValidationError:
        return None
