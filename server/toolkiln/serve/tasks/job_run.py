"""One task's call, run to its end in this process: what it says is flushed to the
store as it runs, a cancel written to the store by another process stops it, and its
outcome (completed, failed, cancelled) is the task's last write: offered again until a
store that was away takes it (the task stays this server's meanwhile). Also how a job's
news is written (`write_changes`), and the end of the jobs a stopping server leaves."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import anyio
import mcp.types as types
from mcp.shared.exceptions import MCPError

from toolkiln.runner import ToolResult
from toolkiln.serve.tasks.job import Job, JobWriter, TaskObserver
from toolkiln.serve.tasks.store import TERMINAL, TaskRecord, TaskStore, TaskStoreError

logger = logging.getLogger(__name__)

FLUSH_SECONDS = 0.25  # progress and logs reach the store at most this often
RETRY_SECONDS = 2.0  # how often the end of a task is offered again to a store that was away
CANCEL_SECONDS = 1.0  # a task cancelled through another replica is stopped within about this

# The call a task runs: given the task's observer, the tool's result.
TaskCall = Callable[[Any], Awaitable[ToolResult]]
ResultMaker = Callable[[ToolResult], dict[str, Any]]


class JobHost(JobWriter, Protocol):
    """What running a job needs of the task service."""

    store: TaskStore | None


async def run_job(host: JobHost, job: Job, call: TaskCall, make_result: ResultMaker) -> None:
    """Run `call` as the task `job` until it ends, and write how it ended."""
    outcome: dict[str, Any] = {}
    async with anyio.create_task_group() as flushing:
        flushing.start_soon(_flush_while_running, host, job)
        try:
            with job.scope:
                result = await call(TaskObserver(host, job))
                outcome = {"status": "completed", "result": make_result(result)}
        except MCPError as error:
            outcome = _failed(error.error.model_dump(by_alias=True, mode="json", exclude_none=True))
        except Exception:
            logger.exception("task %s of tool %r failed inside toolkiln", job.task_id, job.tool)
            outcome = _failed({"code": types.INTERNAL_ERROR, "message": "The task failed inside toolkiln."})
        flushing.cancel_scope.cancel()
    if job.failure is not None:
        outcome = _failed(job.failure)
    elif job.cancelled or not outcome:
        outcome = {"status": "cancelled", "status_message": "Cancelled by the client."}
    await host.write(job, input_requests=None, **outcome)
    while job.ending is not None:  # the store was away when it ended: told once it is back
        await anyio.sleep(RETRY_SECONDS)
        await host.write(job, **job.ending)


async def end_jobs(store: TaskStore, jobs: list[Job], publish: Callable[[TaskRecord | None], None]) -> None:
    """Write the end of each of `jobs`, left running as the server stops: failed."""
    message = "The server stopped while the task ran."
    error = {"code": types.INTERNAL_ERROR, "message": message}
    for job in jobs:
        # A task that ended while the store was away: how it ended, not a failure.
        changes = job.ending or {"status": "failed", "error": error, "status_message": message}
        update = functools.partial(store.update, job.task_id, **changes)
        try:
            publish(await anyio.to_thread.run_sync(update))
        except TaskStoreError as unreachable:  # its heartbeat stops: others will fail it
            logger.warning("task %s was not marked failed: %s", job.task_id, unreachable)


async def write_changes(
    store: TaskStore, job: Job, changes: dict[str, Any]
) -> tuple[dict[str, Any], TaskRecord | None] | None:
    """Write `changes` and what `job` has gathered: what was written, and the record as
    it is now; None when the store did not take it (kept for the next write: an ending
    is offered again until the store takes it, `run_job`)."""
    if job.dirty:
        changes = {"progress": job.progress, "logs": list(job.logs), **changes}
        if "status_message" not in changes and job.status_message is not None:
            changes["status_message"] = job.status_message
        job.dirty = False
    try:
        with anyio.CancelScope(shield=True):
            record = await anyio.to_thread.run_sync(lambda: store.update(job.task_id, **changes))
    except TaskStoreError as error:
        if job.ending is None:
            logger.warning("task %s: its news did not reach the store: %s", job.task_id, error)
        job.dirty = True
        if changes.get("status") in TERMINAL:
            job.ending = changes
        return None
    if job.ending is not None:
        if record is None:  # Redis came back without its data: the task is gone with it
            logger.warning("task %s: the task store no longer holds it; its result is lost", job.task_id)
        else:
            logger.info("task %s: how it ended reached the task store", job.task_id)
        job.ending = None
    return changes, record


async def _flush_while_running(host: JobHost, job: Job) -> None:
    """Write what the job gathered; when it has nothing to write, still look at the
    store at least every CANCEL_SECONDS: a cancel written there by another process
    (`toolkiln tasks cancel`, another replica of a shared store) stops a script that
    prints nothing."""
    looked = time.monotonic()
    while True:
        await anyio.sleep(FLUSH_SECONDS)
        if job.dirty:
            await host.write(job)
            looked = time.monotonic()
        elif host.store is not None and time.monotonic() - looked >= CANCEL_SECONDS:
            await _look_for_cancel(host.store, job)
            looked = time.monotonic()


async def _look_for_cancel(store: TaskStore, job: Job) -> None:
    try:
        record = await anyio.to_thread.run_sync(store.get, job.task_id)
    except TaskStoreError:
        return
    if record is not None and record.status == "cancelled" and not job.cancelled:
        job.cancelled = True
        job.scope.cancel()


def _failed(error: dict[str, Any]) -> dict[str, Any]:
    return {"status": "failed", "error": error, "status_message": str(error.get("message", ""))}
