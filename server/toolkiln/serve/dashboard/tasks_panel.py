"""The dashboard's Tasks panel: the calls running as MCP tasks, their status and
progress, a task's result on demand, and a Cancel button.

The dashboard's user holds the server's token: they are the operator, and see every
task of the store (stdio clients' too, when they share the state folder), as
`toolkiln tasks` shows them. A task's id never reaches the page: a task id is what an
MCP client polls with (under --no-auth, all a client needs). The page names a task by
a handle, a MAC of the session and the id under the task handles' own key (sessions.py,
toolkiln/signing.py), so a handle is good only with the session that was shown it (not
after its logout), only as a handle, and only where its CSRF token goes too (the cancel).
A result is shown only when asked for; every value is rendered by the server, escaped.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toolkiln.serve.tasks.overview import (
    age_text,
    client_of,
    fraction_done,
    progress_text,
    result_text,
    seen_status,
)
from toolkiln.serve.tasks.store import TaskRecord

Handle = Callable[[str], str]  # a task id -> its handle on this session's page


def _judged(owner: object) -> bool:
    """The records come from `TaskService.list_all`, which has already asked the store
    whether each owner runs (a heartbeat in Redis, for a server on another machine) and
    written the orphans failed: the process table of this machine must not judge again."""
    return True


STRUCTURED_SHOWN = 20_000  # characters of a result's structuredContent shown


@dataclass(frozen=True)
class TaskRow:
    handle: str
    tool: str
    status: str
    progress: str
    fraction: float | None
    age: str
    client: str
    running: bool


def task_rows(records: list[TaskRecord], handle: Handle, now: float | None = None) -> list[TaskRow]:
    """The rows of the panel, newest first."""
    now = time.time() if now is None else now
    rows = []
    for record in reversed(records):
        status, _ = seen_status(record, _judged)
        rows.append(
            TaskRow(
                handle=handle(record.task_id),
                tool=record.tool,
                status=status,
                progress=progress_text(record, _judged),
                fraction=fraction_done(record),
                age=age_text(record, now),
                client=client_of(record),
                running=status in ("working", "input_required"),
            )
        )
    return rows


def panel_version(rows: list[TaskRow]) -> str:
    """What changes when a row changes (but its age): the page replaces the panel then."""
    seen = [(row.handle, row.status, row.progress, row.fraction) for row in rows]
    return hashlib.sha256(json.dumps(seen).encode()).hexdigest()[:16]


def find_by_handle(records: list[TaskRecord], handle: Handle, given: str) -> TaskRecord | None:
    for record in records:
        if hmac.compare_digest(handle(record.task_id).encode(), given.encode()):
            return record
    return None


def detail_values(record: TaskRecord, handle: Handle) -> dict[str, Any]:
    """What `_task.html` shows of one task: its logs, and its result or error."""
    status, message = seen_status(record, _judged)
    structured = (record.result or {}).get("structuredContent")
    return {
        "handle": handle(record.task_id),
        "tool": record.tool,
        "status": status,
        "message": message or "",
        "progress": progress_text(record, _judged),
        "logs": record.logs,
        "ended": status not in ("working", "input_required"),
        "is_error": status == "failed" or bool((record.result or {}).get("isError")),
        "result": result_text(record) if record.terminal else "",
        "structured": json.dumps(structured, indent=2, ensure_ascii=False)[:STRUCTURED_SHOWN]
        if structured is not None
        else "",
    }
