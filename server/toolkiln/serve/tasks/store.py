"""What the task store keeps, and the few operations a store offers.

The store is the truth about a task: `tasks/get` reads it, the process running the
task writes it. `SqliteTaskStore` (sqlite.py) keeps it in one file under the state
folder, for one machine; `RedisTaskStore` (redis_store.py) in a Redis server that
replicas share. `open_task_store` (stores.py) picks one.
Nothing here imports the SDK: records hold plain JSON.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal, Protocol

Status = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
STORE_FILE = "tasks.sqlite3"  # the embedded store (sqlite.py), in the state folder


class TaskStoreError(Exception):
    """The store cannot do what was asked; the message says why, for a user."""


class StoreFullError(TaskStoreError):
    """The store holds as many tasks, or bytes, as it may: no new task now."""


class StoreUnreachableError(TaskStoreError):
    """The store (a Redis server) cannot be reached, or failed to answer."""


@dataclass
class TaskRecord:
    """One task. Times are seconds since the epoch; `owner` says which server process
    runs it (pid, start time, boot id: liveness.py), so a task whose server died can be
    told from one still running."""

    task_id: str
    principal: str  # who may see it (see principal.py)
    tool: str
    status: Status
    created_at: float
    updated_at: float
    ttl_ms: int
    poll_interval_ms: int
    owner: dict[str, Any]
    status_message: str | None = None
    # The outstanding questions, by key (input_required only).
    input_requests: dict[str, Any] | None = None
    progress: dict[str, Any] | None = None  # the latest: progress, total, message
    logs: list[dict[str, Any]] = field(default_factory=list)  # the latest lines: level, message
    result: dict[str, Any] | None = None  # the CallToolResult (completed)
    error: dict[str, Any] | None = None  # the JSON-RPC error (failed)

    @property
    def expires_at(self) -> float:
        return self.created_at + self.ttl_ms / 1000

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL


class TaskStore(Protocol):
    """Where tasks live between the call that made them and their expiry.

    Every method is synchronous and quick; callers on the event loop run them in a
    worker thread. `update` changes only a task that has not ended, so a cancellation
    is never overwritten by the result that raced it. Any method may raise
    `StoreUnreachableError` (a shared store that is down).
    """

    def create(self, record: TaskRecord) -> None:
        """Keep `record` (durably: a `get` from any process finds it once this returns).
        `StoreFullError` when the store is at its bounds."""
        ...

    def get(self, task_id: str) -> TaskRecord | None:
        """The task, or None when there is none (or it has expired)."""
        ...

    def update(self, task_id: str, **changes: Any) -> TaskRecord | None:
        """Apply `changes` (fields of TaskRecord) to a task that has not ended; the
        task as it is now (unchanged if it had ended), or None if it is gone."""
        ...

    def list(self, principal: str | None = None, *, active_only: bool = False) -> list[TaskRecord]:
        """Tasks (of `principal`, if given), oldest first."""
        ...

    def expire(self, now: float) -> int:
        """Remove the tasks whose time to live has passed; how many."""
        ...

    def beat(self, owner: dict[str, Any], seconds: float) -> None:
        """Say that `owner` (this server) is running, for `seconds` from now."""
        ...

    def owner_running(self, owner: dict[str, Any]) -> bool:
        """Whether the server `owner` names is seen running now (its process, or its heartbeat)."""
        ...

    def owner_gone(self, owner: dict[str, Any]) -> str | None:
        """Why the server `owner` names is known to have stopped (its tasks will never end),
        in words for a user; None when it runs, or when the store cannot tell yet (a
        shared store that was away: a heartbeat missing then says nothing)."""
        ...

    def close(self) -> None: ...


def describe_owner(owner: dict[str, Any]) -> str:
    """The server a task names, unambiguous across machines: `instance 3f2a9c01 (pid 812 on
    host web-2)`."""
    instance = str(owner.get("instance") or "")[:8]
    where = f"pid {owner.get('pid')} on host {owner.get('host') or 'unknown'}"
    return f"instance {instance} ({where})" if instance else where


FIELDS = frozenset(item.name for item in fields(TaskRecord))


def dump_record(record: TaskRecord) -> str:
    """A task as a store keeps it: compact JSON."""
    return json.dumps(asdict(record), ensure_ascii=False, separators=(",", ":"))


def load_record(body: str) -> TaskRecord:
    return TaskRecord(**json.loads(body))
