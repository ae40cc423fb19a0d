"""What the task store keeps, and the few operations a store offers.

The store is the truth about a task: `tasks/get` reads it, the process running the
task writes it. `SqliteTaskStore` (sqlite.py) keeps it in one file under the state
folder, for one machine; a shared store (Redis) fits the same `TaskStore` protocol.
Nothing here imports the SDK: records hold plain JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

Status = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})


class StoreFullError(Exception):
    """The store holds as many tasks, or bytes, as it may: no new task now."""


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
    is never overwritten by the result that raced it.
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

    def close(self) -> None: ...
