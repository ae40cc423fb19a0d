"""A task running in this process (`Job`): what is not yet in the store, and the
runner's observer of its call (`TaskObserver`), which turns what the script says
(log lines, progress, questions) into the task's record."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio
import mcp.types as types
from mcp_types import REQUEST_TIMEOUT

from toolkiln.runner import LogLine, ProgressLine
from toolkiln.serve.calls.interactive import missing_capability_error, refusal, typed_request
from toolkiln.serve.tasks.store import TaskRecord

LOG_LINES_KEPT = 20
LOG_LINE_CHARS = 500
UNANSWERED = (
    "No answers to the task's questions came within {seconds:g} s, so it was stopped "
    "(config/server.json `interactive.answer_timeout_seconds`); start it again."
)


class JobWriter(Protocol):
    """What the observer needs of the task service."""

    def answer_timeout(self) -> float: ...

    async def write(self, job: Job, **changes: Any) -> None: ...


@dataclass
class Job:
    """A task running in this process: its scope, and what is not yet in the store."""

    task_id: str
    tool: str
    capabilities: types.ClientCapabilities | None
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    progress: dict[str, Any] | None = None
    status_message: str | None = None
    logs: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=LOG_LINES_KEPT))
    dirty: bool = False
    cancelled: bool = False
    failure: dict[str, Any] | None = None  # a JSON-RPC error that ends the task as failed
    ending: dict[str, Any] | None = None  # how it ended, while the store could not be told
    rounds: int = 0
    pending: dict[str, str] = field(default_factory=dict)  # outstanding key -> the script's key
    answers: dict[str, Any] = field(default_factory=dict)
    answered: anyio.Event = field(default_factory=anyio.Event)


class TaskObserver:
    """The runner's observer of a task's call: what the script says goes to the store."""

    def __init__(self, service: JobWriter, job: Job) -> None:
        self.service, self.job = service, job

    def on_log(self, tool: str, line: LogLine) -> None:
        self.job.logs.append({"level": line.level, "message": line.message[:LOG_LINE_CHARS]})
        self.job.dirty = True

    def on_progress(self, tool: str, line: ProgressLine) -> None:
        progress: dict[str, Any] = {"progress": line.progress}
        if line.total is not None:
            progress["total"] = line.total
        if line.message:
            progress["message"] = line.message[:LOG_LINE_CHARS]
        total = f"/{line.total:g}" if line.total is not None else ""
        self.job.progress = progress
        self.job.status_message = f"{line.progress:g}{total} {line.message or ''}".strip()
        self.job.dirty = True

    async def on_input(self, tool: str, requests: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """The script's questions become the task's `inputRequests` (each under a key new
        in this task), until `tasks/update` has answered them all."""
        job = self.job
        refused = {key: refusal(job.capabilities, request["method"]) for key, request in requests.items()}
        refusals = {key: answer for key, answer in refused.items() if answer is not None}
        try:
            typed = {key: typed_request(r) for key, r in requests.items() if key not in refusals}
        except ValueError as error:  # pydantic's: the script's request is malformed
            return {key: {"error": f"malformed request: {error}"} for key in requests}
        if not typed:  # it asks only what this client cannot answer, and waits: the task fails
            job.failure = missing_capability_error(requests.values()).error.model_dump(
                by_alias=True, mode="json", exclude_none=True
            )
            job.scope.cancel()
            await anyio.sleep_forever()
        job.rounds += 1
        job.pending = {f"{job.rounds}.{key}": key for key in typed}
        job.answers, job.answered = {}, anyio.Event()
        asked = {
            minted: typed[key].model_dump(by_alias=True, mode="json", exclude_none=True)
            for minted, key in job.pending.items()
        }
        await self.service.write(
            job,
            status="input_required",
            input_requests=asked,
            status_message="Waiting for the client's answers.",
        )
        timeout = self.service.answer_timeout()
        with anyio.move_on_after(timeout):
            await job.answered.wait()
        if not job.answered.is_set():  # nobody answered: the task stops, its slot is freed
            job.failure = {"code": REQUEST_TIMEOUT, "message": UNANSWERED.format(seconds=timeout)}
            job.scope.cancel()
            await anyio.sleep_forever()
        await self.service.write(job, status="working", input_requests=None, status_message=None)
        return {**refusals, **job.answers}


def still_asked(job: Job, record: TaskRecord) -> dict[str, Any]:
    return {key: value for key, value in (record.input_requests or {}).items() if key in job.pending}
