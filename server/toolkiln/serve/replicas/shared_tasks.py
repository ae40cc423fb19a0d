"""The tasks of a replica: kept in the Redis store that every replica of a state URL
shares, with this server's heartbeat in it, and answers for a task whose script runs
on another replica relayed there (replicas/relayed_calls.py).

Chosen once, when the server is made with a state URL (replicas/replication.py); a single
server's `TaskService` (tasks/service.py) has none of this.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from anyio.abc import TaskGroup

from toolkiln.model import TaskSettings
from toolkiln.serve.readiness import Readiness
from toolkiln.serve.tasks.owners import Heartbeat
from toolkiln.serve.tasks.service import TaskService
from toolkiln.serve.tasks.store import TaskRecord, TaskStore


class Relayer(Protocol):
    """How a client's answers reach the replica that runs a task (replicas/relayed_calls.py)."""

    async def update(self, record: TaskRecord, principal: str, responses: dict[str, Any]) -> None: ...


class SharedTaskService(TaskService):
    """Tasks in a shared store: this server beats in it while it runs (so no replica
    takes its tasks as lost), and answers for a task another replica runs go there
    (`relayer`; None without a shared secret: they are refused, as alone)."""

    def __init__(
        self,
        state_dir: Path,
        settings: Callable[[], TaskSettings],
        owner: dict[str, Any],
        *,
        make_store: Callable[[TaskSettings], TaskStore],
        readiness: Readiness,
        relayer: Relayer | None,
        answer_timeout: Callable[[], float] = lambda: 300.0,
        on_status: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__(state_dir, settings, owner, answer_timeout, on_status)
        self._make_shared = make_store  # the Redis store of the state URL (replicas/replication.py)
        self.heartbeat = Heartbeat(owner, self.open_store, readiness)
        self.relayer = relayer

    def _make_store(self, limits: TaskSettings) -> TaskStore:
        return self._make_shared(limits)

    def _may_hold_tasks(self) -> bool:
        return True  # other replicas make tasks in it

    async def _check_in(self) -> None:
        if self.heartbeat.stale:
            await self.heartbeat.beat()

    async def _beside(self, group: TaskGroup) -> None:
        group.start_soon(self.heartbeat.beat_while_running)

    async def answer(self, task_id: str, principal: str, responses: dict[str, Any]) -> None:
        """Deliver `responses` to the task's questions; when its script waits on another
        replica, relay them there."""
        record = await self.get(task_id, principal)
        if self.relayer is not None and record.status == "input_required" and not self.runs_here(task_id):
            return await self.relayer.update(record, principal, responses)
        await self.deliver(record, principal, responses)
