"""Tool calls running as tasks: started in the background, followed through the store.

`TaskService` makes the task record (in the store, before the client hears of it), runs the
call in its task group beside the server, and writes what happens: progress and log lines
(throttled), questions (`input_required`, answered by `tasks/update`), the result, the
error, a cancellation. Cancelling stops the call's scope, which stops the script's process
group (process/ kills it, with a grace period, on the way out).

On start, and when a task is read, a task left `working` by a server that is no longer
running is marked failed with the reason, never left working (owners.py: the owner of a
task, the heartbeat, the orphans). Each new status (and each change of a task's questions)
is published to the `subscriptions/listen` streams that follow the task (tasks/listeners.py,
listen.py). A shared store that cannot be reached fails what needs it (a new task, a
`tasks/get`) with an error that says so, and nothing else: a task that ends meanwhile keeps
how it ended, and this server writes it once the store is back (it stays this server's task
until then, so no replica takes it as lost). Finished tasks stay for their time to live (the
tool's timeout plus `keep_seconds`), then the store drops them.

This is a single server's, in the state folder's SQLite file; with a state URL a
`SharedTaskService` (shared.py: Redis, a heartbeat, relayed answers) takes its place.
"""

from __future__ import annotations

import functools
import logging
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from anyio.abc import TaskGroup, TaskStatus
from mcp.shared.exceptions import MCPError

from toolkiln.model import CompiledTool, TaskSettings
from toolkiln.serve.calls.interactive import as_json
from toolkiln.serve.tasks.job import Job, still_asked
from toolkiln.serve.tasks.job_run import ResultMaker, TaskCall, end_jobs, run_job, write_changes
from toolkiln.serve.tasks.listeners import TaskNotices
from toolkiln.serve.tasks.owners import fail_orphans, settle_orphan
from toolkiln.serve.tasks.store import (
    STORE_FILE,
    StoreFullError,
    StoreUnreachableError,
    TaskRecord,
    TaskStore,
    TaskStoreError,
)

logger = logging.getLogger(__name__)

EXPIRE_SECONDS = 60.0  # how often expired tasks are removed
ELSEWHERE = (
    "This task's script runs in another server process (another replica), which alone can "
    "hand it these answers: send tasks/update to that replica (route tasks/* by the Mcp-Name "
    "header, which carries the task id). Nothing was answered."
)


class TaskNotFoundError(Exception):
    """No task with this id for this principal (or it expired)."""


class TaskService:
    """The tasks of this server: created, run, read, answered and cancelled."""

    def __init__(
        self,
        state_dir: Path,
        settings: Callable[[], TaskSettings],
        owner: dict[str, Any],
        answer_timeout: Callable[[], float] = lambda: 300.0,
        on_status: Callable[[str], None] | None = None,
    ) -> None:
        self.store_file = state_dir / STORE_FILE
        self.settings = settings
        self.answer_timeout = answer_timeout  # seconds a task waits in input_required
        self.owner = owner  # which server runs a task: its process and instance (owners.py)
        self.store: TaskStore | None = None
        self._group: TaskGroup | None = None
        self._jobs: dict[str, Job] = {}
        self.notices = TaskNotices()  # the listen streams that follow a task (listen.py)
        self.on_status = on_status  # each status a task reaches (telemetry)

    def open_store(self) -> TaskStore:
        """The store, opened (and made, 0600 in a 0700 folder) on first use: a server
        whose clients never run a task writes nothing."""
        if self.store is None:
            self.store = self._make_store(self.settings())
        return self.store

    def _make_store(self, limits: TaskSettings) -> TaskStore:
        from toolkiln.serve.tasks.sqlite import SqliteTaskStore  # sqlite3: when a task first comes

        return SqliteTaskStore(self.store_file, max_tasks=limits.max_tasks, max_bytes=limits.max_bytes)

    def _may_hold_tasks(self) -> bool:
        """Whether the store may hold a task (a SQLite file never made holds none)."""
        return self.store is not None or self.store_file.exists()

    async def _check_in(self) -> None:
        """Before the orphans are failed, and before a task is made: nothing to do alone
        (a shared store's heartbeat: shared.py)."""

    async def _beside(self, group: TaskGroup) -> None:
        """What runs beside the tasks (a shared store's heartbeat: shared.py)."""

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Serve tasks until cancelled; then the running ones are cancelled (their
        processes stopped) and marked failed, so none is left working."""
        if self._may_hold_tasks():  # tasks of a server that died: none left working
            try:
                store = await anyio.to_thread.run_sync(self.open_store)
                await self._check_in()
                failed = await anyio.to_thread.run_sync(fail_orphans, store, self._jobs)
            except TaskStoreError as error:
                logger.warning("tasks of servers that stopped were not checked: %s", error)
                failed = 0
            if failed:
                logger.warning("%d task(s) of a server that stopped were marked failed", failed)
        try:
            async with anyio.create_task_group() as group:
                self._group = group
                await self._beside(group)
                task_status.started()
                while True:
                    await anyio.sleep(EXPIRE_SECONDS)
                    if self.store is not None:
                        try:
                            await anyio.to_thread.run_sync(self.store.expire, time.time())
                        except TaskStoreError as error:
                            logger.warning("expired tasks were not removed: %s", error)
        finally:
            self._group = None
            if self.store is not None:
                with anyio.CancelScope(shield=True):
                    # The tasks this server still ran are failed (their processes stopped with
                    # the task group), then the store is closed.
                    await end_jobs(self.store, list(self._jobs.values()), self.notices.publish)
                    await anyio.to_thread.run_sync(self.store.close)

    @property
    def running(self) -> int:
        """How many tasks this server runs now."""
        return len(self._jobs)

    def stop_running(self, message: str) -> None:
        """End every task running here as failed with `message` (the server is stopping:
        serve/http/drain.py); their scripts are stopped, and each task's end is written."""
        for job in list(self._jobs.values()):
            job.failure = {"code": types.INTERNAL_ERROR, "message": message}
            job.scope.cancel()

    @property
    def serving(self) -> bool:
        return self._group is not None

    def runs_here(self, task_id: str) -> bool:
        """Whether this process runs the task (so it publishes the task's changes itself)."""
        return task_id in self._jobs

    async def start(
        self,
        tool: CompiledTool,
        call: TaskCall,
        make_result: ResultMaker,
        principal: str,
        capabilities: types.ClientCapabilities | None,
        timeout: float,
    ) -> TaskRecord:
        """Store a new task and start `call` in the background; the task as created.
        `StoreFullError` when the store is at its bounds."""
        if self._group is None:
            raise StoreFullError("tasks are not being served")
        store = await anyio.to_thread.run_sync(self.open_store)
        await self._check_in()  # in a shared store, the task's owner is seen running from its first moment
        settings = self.settings()
        now = time.time()
        record = TaskRecord(
            # 192 random bits in hex: never starts with `-`, so `toolkiln tasks show ID` reads it.
            task_id=secrets.token_hex(24),
            principal=principal,
            tool=tool.name,
            status="working",
            created_at=now,
            updated_at=now,
            ttl_ms=int((timeout + settings.keep_seconds) * 1000),
            poll_interval_ms=settings.poll_interval_ms,
            owner=self.owner,
        )
        await anyio.to_thread.run_sync(store.create, record)
        if self.on_status is not None:
            self.on_status(record.status)
        job = Job(record.task_id, tool.name, capabilities)
        self._jobs[record.task_id] = job
        self._group.start_soon(self._run_job, job, call, make_result)
        return record

    async def _run_job(self, job: Job, call: TaskCall, make_result: ResultMaker) -> None:
        try:
            await run_job(self, job, call, make_result)
        finally:
            self._jobs.pop(job.task_id, None)

    async def write(self, job: Job, **changes: Any) -> None:
        """Write `changes` and what the job has gathered (job_run.py); a task cancelled in
        the store (by another server of the same store) stops here."""
        assert self.store is not None
        written = await write_changes(self.store, job, changes)
        if written is None:  # kept for the next write; the task runs on
            return
        changes, record = written
        if "status" in changes or "input_requests" in changes:
            self.notices.publish(record)
        if self.on_status is not None and "status" in changes:
            self.on_status(str(changes["status"]))
        if record is not None and record.status == "cancelled" and not job.cancelled:
            job.cancelled = True
            job.scope.cancel()

    async def get(self, task_id: str, principal: str) -> TaskRecord:
        """The task; `TaskNotFoundError`, or an `MCPError` that says the store is unreachable."""
        if not self._may_hold_tasks():
            raise TaskNotFoundError(task_id)
        try:
            store = await anyio.to_thread.run_sync(self.open_store)
            record = await anyio.to_thread.run_sync(store.get, task_id)
            if record is None or not secrets.compare_digest(record.principal, principal):
                raise TaskNotFoundError(task_id)
            record = await self._settled(store, record)
        except StoreUnreachableError as error:
            raise unreachable(error) from None
        return record

    async def list_all(self) -> list[TaskRecord]:
        """Every task in the store, of every principal, oldest first: for the operator
        (the dashboard), never for an MCP client. A task whose server is gone is failed."""
        if not self._may_hold_tasks():
            return []
        try:
            store = await anyio.to_thread.run_sync(self.open_store)
            return [
                await self._settled(store, record) for record in await anyio.to_thread.run_sync(store.list)
            ]
        except StoreUnreachableError as error:
            raise unreachable(error) from None

    async def _settled(self, store: TaskStore, record: TaskRecord) -> TaskRecord:
        """The task, failed (and its streams told) when its server is known to be gone."""
        settled = await anyio.to_thread.run_sync(settle_orphan, store, record, self._jobs)
        if settled is None:
            return record
        self.notices.publish(settled)
        return settled

    async def answer(self, task_id: str, principal: str, responses: dict[str, Any]) -> None:
        """Deliver `responses` to the task's outstanding questions; other keys are ignored."""
        await self.deliver(await self.get(task_id, principal), principal, responses)

    async def deliver(self, record: TaskRecord, principal: str, responses: dict[str, Any]) -> None:
        """`answer` the task `record` (just read) in this process: its script runs here
        (a replica's relayed answers come here: replicas/relayed_calls.py), or they are refused."""
        task_id = record.task_id
        job = self._jobs.get(task_id)
        if job is None and record.status == "input_required":  # its script waits in another process
            raise MCPError(code=types.INVALID_REQUEST, message=ELSEWHERE)
        if job is None or not job.pending:
            return
        for key in list(job.pending):
            if key in responses:
                job.answers[job.pending.pop(key)] = as_json(responses[key])
        if job.pending:
            await self.write(job, input_requests=still_asked(job, await self.get(task_id, principal)))
        else:
            job.answered.set()

    async def cancel(self, task_id: str, principal: str, message: str = "Cancelled by the client.") -> None:
        record = await self.get(task_id, principal)
        if record.terminal:
            return
        assert self.store is not None
        cancel = functools.partial(self.store.update, task_id, status="cancelled", status_message=message)
        try:
            self.notices.publish(await anyio.to_thread.run_sync(cancel))
        except StoreUnreachableError as error:
            raise unreachable(error) from None
        if self.on_status is not None:
            self.on_status("cancelled")
        job = self._jobs.get(task_id)
        if job is not None:
            job.cancelled = True
            job.scope.cancel()


def unreachable(error: StoreUnreachableError) -> MCPError:
    """The JSON-RPC error of a task method whose store is down."""
    return MCPError(code=types.INTERNAL_ERROR, message=f"The task store is unreachable: {error}.")
