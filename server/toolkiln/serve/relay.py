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

Redis is inside the trust boundary (docs/security.md), and yet every message and reply
is parsed strictly (pydantic models that forbid other keys, sizes at most
MAX_MESSAGE_BYTES): nothing in one is executed, and none names a file or a key
other than the ones computed here.
"""

from __future__ import annotations

import json
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

logger = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 8 * 1024 * 1024  # a relayed message or reply, in its JSON
WAIT_SECONDS = 1.0  # one wait for a reply (or a message), between looks at the heartbeat
ACCEPT_SECONDS = 10.0  # the replica named takes a message within this, or it is taken back
KEEP_SECONDS = 60  # a list nobody reads is dropped after this
RETRY_SECONDS = 2.0  # after Redis failed, the listener tries again
CONNECT_SECONDS = 2.0
ANSWER_SECONDS = 5.0  # more than WAIT_SECONDS
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

    def __init__(self, url: str, *, prefix: str, instance: str) -> None:
        self.where = redact_url(url)
        self.prefix = prefix
        self.instance = instance
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
        message = Message(v=1, id=secrets.token_hex(16), kind=kind, body=body).model_dump_json()
        if len(message.encode()) > MAX_MESSAGE_BYTES:
            raise RelayError(f"the answers are too large to relay (over {MAX_MESSAGE_BYTES} bytes)")
        message_id = json.loads(message)["id"]
        try:
            return await self._send(instance, message, self._reply_key(message_id))
        except (redis.exceptions.RedisError, OSError) as error:
            raise RelayError(
                f"the shared state store (Redis at {self.where}) cannot be reached to relay the "
                f"answers ({type(error).__name__})"
            ) from None

    async def _send(self, instance: str, message: str, reply_key: str) -> dict[str, Any]:
        gone = RelayError(
            "the replica running this call has stopped (it crashed, was killed or restarted), "
            "and the call's script with it; call the tool again",
            INVALID_PARAMS,
        )
        if not await self.client.exists(self._owner_key(instance)):
            raise gone
        inbox = self._inbox(instance)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.rpush(inbox, message)
            pipe.expire(inbox, KEEP_SECONDS)
            await pipe.execute()
        accepted, deadline = False, time.monotonic() + ACCEPT_SECONDS
        while True:
            got: Any = await self.client.blpop([reply_key], timeout=WAIT_SECONDS)
            if got is not None:
                reply = _parse(Reply, got[1])
                if reply is None:
                    raise RelayError("the replica running this call sent a reply that is not one")
                if reply.outcome is not None:
                    return reply.outcome
                accepted = True
                continue
            if not await self.client.exists(self._owner_key(instance)):
                raise gone
            if not accepted and time.monotonic() > deadline and await self.client.lrem(inbox, 1, message):
                raise RelayError(
                    f"the replica running this call did not take its answers within {ACCEPT_SECONDS:g} s "
                    "(it is overloaded, or cannot reach Redis); nothing was answered, try again"
                )

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

    async def _reply(self, handle: Handler, text: str) -> None:
        message = _parse(Message, text)
        if message is None:
            logger.warning("dropped a relayed message that is not one (%d bytes)", len(text))
            return
        key = self._reply_key(message.id)
        try:
            await self._push(key, Reply(accepted=True))
            try:
                outcome = await handle(message.kind, message.body)
            except Exception:  # never lost: the sender hears of it
                logger.exception("a relayed %s failed inside toolkiln", message.kind)
                outcome = {"error": {"code": -32603, "message": "The relayed call failed inside toolkiln."}}
            reply = Reply(outcome=outcome)
            if len(reply.model_dump_json().encode()) > MAX_MESSAGE_BYTES:
                too_large = f"The call's outcome is too large to relay (over {MAX_MESSAGE_BYTES} bytes)."
                reply = Reply(outcome={"error": {"code": -32603, "message": too_large}})
            await self._push(key, reply)
        except (redis.exceptions.RedisError, OSError) as error:
            logger.warning(
                "the reply to a relayed %s was lost: Redis at %s: %s", message.kind, self.where, error
            )

    async def _push(self, key: str, reply: Reply) -> None:
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.rpush(key, reply.model_dump_json(exclude_defaults=True))
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
