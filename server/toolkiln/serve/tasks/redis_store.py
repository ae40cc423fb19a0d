"""The shared task store: a Redis server that every replica of a deployment points at.

Keys (each under the configured prefix, so two deployments can share a server):

- `task:<id>`: the task's JSON, which Redis itself removes when its time to live ends;
- `tasks`: a sorted set of the task ids by when they expire, and `sizes`: a hash of
  their JSON's size, which keep the store's bounds;
- `owner:<instance>`: a heartbeat of each running server (`beat`), which expires a few
  seconds after the server stops beating: a replica that was killed is seen as gone by
  the others, which then report its tasks failed (`owner_gone`: only once the store has
  been reachable, without a break and from this replica, for longer than a heartbeat
  lasts: a heartbeat that lapsed while Redis was away says nothing about its server).
  With the shared secret it is sealed
  for its instance (serve/sealed_messages.py): a heartbeat written by hand, or copied
  from another instance's key, or older than HEARTBEAT_SECONDS, is no heartbeat.

Creating a task is one Lua script (drop the expired, check the bounds, store), so two
replicas never both take the last room; `update` is an optimistic transaction (WATCH)
that changes only a task that has not ended. Not for Redis Cluster: the script names
keys it computes.

With the shared secret, each task's JSON is sealed for that task (serve/sealed_messages.py):
a record written by hand, or copied from another task's key, is no task (a warning in
the log), so whoever can write to Redis cannot hand a client a forged result or move a
task to another principal. Tool results are kept here: whoever can reach the Redis
server can read them (docs/security.md). `redis` is imported only by this module, and only when a URL is
configured.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any, cast

import redis
import redis.exceptions

from toolkiln.model.state import redact_url
from toolkiln.serve.sealed_messages import HEARTBEAT_SECONDS, SealError, Seals, beats, unsealed_payload
from toolkiln.serve.tasks.store import (
    FIELDS,
    StoreFullError,
    StoreUnreachableError,
    TaskRecord,
    TaskStoreError,
    describe_owner,
    dump_record,
    load_record,
)

logger = logging.getLogger(__name__)

CONNECT_SECONDS = 2.0
ANSWER_SECONDS = 5.0

# KEYS: tasks, sizes. ARGV: now (ms), key prefix of a task. The expired ids are dropped.
_DROP_EXPIRED = """
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for _, id in ipairs(expired) do
  redis.call('DEL', ARGV[2] .. id)
  redis.call('HDEL', KEYS[2], id)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
"""
_EXPIRE = _DROP_EXPIRED + "return #expired\n"
# ARGV also: max tasks, max bytes, id, body, expires at (ms). {count, bytes} when full.
_CREATE = (
    _DROP_EXPIRED
    + """
local count = redis.call('ZCARD', KEYS[1])
local size = 0
for _, value in ipairs(redis.call('HVALS', KEYS[2])) do size = size + tonumber(value) end
if count >= tonumber(ARGV[3]) or size + #ARGV[6] > tonumber(ARGV[4]) then
  return {count, size}
end
redis.call('SET', ARGV[2] .. ARGV[5], ARGV[6], 'PXAT', ARGV[7])
redis.call('ZADD', KEYS[1], ARGV[7], ARGV[5])
redis.call('HSET', KEYS[2], ARGV[5], #ARGV[6])
return false
"""
)


class RedisTaskStore:
    """`TaskStore` in Redis; safe to call from several threads (a connection pool)."""

    def __init__(
        self, url: str, *, prefix: str, max_tasks: int, max_bytes: int, seals: Seals | None = None
    ) -> None:
        self.where = redact_url(url)
        self.seals = seals
        self.prefix = prefix
        self.max_tasks = max_tasks
        self.max_bytes = max_bytes
        self._tasks, self._sizes = f"{prefix}tasks", f"{prefix}sizes"
        self._client: redis.Redis = redis.Redis.from_url(
            url,
            decode_responses=True,
            socket_connect_timeout=CONNECT_SECONDS,
            socket_timeout=ANSWER_SECONDS,
            client_name="toolkiln",
        )
        self._create = self._client.register_script(_CREATE)
        self._expire = self._client.register_script(_EXPIRE)
        # Since when (time.monotonic()) this process has reached Redis without a break, once
        # it failed to: None while it cannot; -inf when it never failed to.
        self._reached_since: float | None = float("-inf")
        self._lock = threading.Lock()

    def _key(self, task_id: str) -> str:
        return f"{self.prefix}task:{task_id}"

    @contextlib.contextmanager
    def _watching(self) -> Iterator[None]:
        """Remember whether Redis answered: since when it has, without a break."""
        try:
            yield
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
            with self._lock:
                self._reached_since = None
            raise
        else:
            with self._lock:
                if self._reached_since is None:
                    self._reached_since = time.monotonic()

    @contextlib.contextmanager
    def _reaching(self) -> Iterator[None]:
        """Redis's errors as `StoreUnreachableError`, naming the server (its password
        redacted) and never quoting the URL redis-py may put in its message; whether it
        was reached is remembered (`owner_gone`)."""
        try:
            with self._watching():
                yield
        except redis.exceptions.AuthenticationError:
            raise StoreUnreachableError(
                f"the task store {self.where} refused the password (check TOOLKILN_STATE_URL)"
            ) from None
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as error:
            raise StoreUnreachableError(
                f"the task store {self.where} cannot be reached ({type(error).__name__})"
            ) from None
        except redis.exceptions.RedisError as error:
            raise StoreUnreachableError(
                f"the task store {self.where} failed: {type(error).__name__}: {str(error)[:200]}"
            ) from None

    def _dump(self, record: TaskRecord) -> str:
        body = dump_record(record)
        return body if self.seals is None else self.seals.seal("task-record", body, about=record.task_id)

    def _load(self, task_id: str, body: str) -> TaskRecord | None:
        """The record `body` holds for `task_id`; None (with a warning) when it is not one
        this deployment sealed for that task."""
        if self.seals is None:
            return load_record(unsealed_payload(body))
        try:
            record = load_record(self.seals.open("task-record", body, about=task_id).payload)
        except (SealError, ValueError, TypeError) as error:
            logger.warning("%s: ignored the record of task %s: %s", self.where, task_id[:64], error)
            return None
        return record if record.task_id == task_id else None

    def create(self, record: TaskRecord) -> None:
        body = self._dump(record)
        now_ms = int(time.time() * 1000)
        with self._reaching():
            full = self._create(
                keys=[self._tasks, self._sizes],
                args=[
                    now_ms,
                    self._key(""),
                    self.max_tasks,
                    self.max_bytes,
                    record.task_id,
                    body,
                    _ms(record.expires_at),
                ],
            )
        if full:
            count, size = full
            raise StoreFullError(
                f"the task store holds {count} tasks and {size} bytes "
                f"(at most {self.max_tasks} and {self.max_bytes}: config/server.json `tasks`)"
            )

    def get(self, task_id: str) -> TaskRecord | None:
        with self._reaching():
            body = self._client.get(self._key(task_id))
        record = None if body is None else self._load(task_id, str(body))
        return record if record is not None and record.expires_at > time.time() else None

    def update(self, task_id: str, **changes: Any) -> TaskRecord | None:
        unknown = set(changes) - FIELDS
        if unknown:
            raise TypeError(f"not fields of a task: {sorted(unknown)}")
        key = self._key(task_id)

        def apply(pipe: Any) -> Any:
            body = pipe.get(key)
            if self.seals is None and body is not None and unsealed_payload(body) != body:
                raise TaskStoreError(
                    f"task {task_id[:64]}'s record is sealed with the replicas' secret, which was not "
                    "given here: set TOOLKILN_STATE_SECRET_FILE (or state.secret_file) to change it"
                )
            record = None if body is None else self._load(task_id, body)
            if record is None:
                return None
            if record.terminal:
                return record
            for name, value in changes.items():
                setattr(record, name, value)
            record.updated_at = time.time()
            new = self._dump(record)
            pipe.multi()
            pipe.set(key, new, pxat=_ms(record.expires_at))
            pipe.hset(self._sizes, task_id, len(new.encode()))
            return record

        with self._reaching():
            result = self._client.transaction(apply, key, value_from_callable=True)
        return cast("TaskRecord | None", result)

    def list(self, principal: str | None = None, *, active_only: bool = False) -> list[TaskRecord]:
        with self._reaching():
            ids = cast("list[str]", self._client.zrangebyscore(self._tasks, _ms(time.time()) + 1, "+inf"))
            bodies = cast("list[str | None]", self._client.mget([self._key(i) for i in ids]) if ids else [])
        loaded = [self._load(i, body) for i, body in zip(ids, bodies, strict=True) if body is not None]
        records = [
            record
            for record in loaded
            if record is not None
            and (principal is None or record.principal == principal)
            and not (active_only and record.terminal)
        ]
        return sorted(records, key=lambda record: record.created_at)

    def expire(self, now: float) -> int:
        with self._reaching():
            return int(self._expire(keys=[self._tasks, self._sizes], args=[_ms(now), self._key("")]))

    def beat(self, owner: dict[str, Any], seconds: float) -> None:
        value = "1" if self.seals is None else self.seals.heartbeat(_instance(owner))
        with self._reaching():
            self._client.set(self._owner_key(owner), value, px=int(seconds * 1000))

    def owner_running(self, owner: dict[str, Any]) -> bool:
        with self._reaching():
            value = self._client.get(self._owner_key(owner))
        return beats(self.seals, _instance(owner), value)

    def owner_gone(self, owner: dict[str, Any]) -> str | None:
        """Its heartbeat is missing although Redis has been up, and reached from here
        without a break, for longer than a heartbeat lasts (then a server that runs has
        renewed it). A heartbeat missing sooner may have lapsed while Redis was away, or
        been lost with a Redis restarted without its data: it says nothing."""
        if self.owner_running(owner):
            return None
        with self._lock:
            since = self._reached_since
        if since is None or time.monotonic() - since <= HEARTBEAT_SECONDS:
            return None
        with self._reaching():
            uptime = int(self._client.info("server").get("uptime_in_seconds", 0))
        if uptime <= HEARTBEAT_SECONDS:
            return None
        return (
            f"its server ({describe_owner(owner)}) has not renewed its heartbeat in the task store "
            f"for over {HEARTBEAT_SECONDS:g} s while the store was reachable, so it is taken as stopped"
        )

    def _owner_key(self, owner: dict[str, Any]) -> str:
        return f"{self.prefix}owner:{_instance(owner)}"

    def close(self) -> None:
        self._client.close()


def _instance(owner: dict[str, Any]) -> str:
    return str(owner.get("instance") or owner.get("pid"))


def _ms(seconds: float) -> int:
    return int(seconds * 1000)
