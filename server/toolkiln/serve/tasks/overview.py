"""The tasks of a store as the person who runs the servers sees them: `toolkiln tasks`
and the dashboard's Tasks panel. SDK-free (the store is plain JSON), so the command
line reads the store without loading the mcp SDK.

The operator sees every task of the store, whichever client started it: they own the
state folder (0700) and hold the server's token. A task's result is shown only when
asked for, as text that cannot drive a terminal or a page.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from toolkiln.errors import ToolkilnError
from toolkiln.liveness import still_running
from toolkiln.serve.tasks.store import TERMINAL, TaskRecord, TaskStore, describe_owner

SHORT_ID = 8  # characters of a task id shown in a listing; any unique prefix finds it
# Whether the server an owner names runs, or may: the process table on one machine (the
# SQLite store), a heartbeat for a shared store (`TaskStore.owner_gone`).
Running = Callable[[Mapping[str, Any]], bool]


class TaskLookupError(ToolkilnError):
    """No task, or several, for the id (or prefix) given."""


def open_task_store(state_dir: Path) -> TaskStore | None:
    """The state folder's task store, or None when no server has made one there yet
    (the file is not made here: a listing writes nothing new)."""
    from toolkiln.model.server import TaskSettings
    from toolkiln.serve.tasks.sqlite import SqliteTaskStore
    from toolkiln.serve.tasks.store import STORE_FILE

    path = state_dir / STORE_FILE
    if not path.exists():
        return None
    limits = TaskSettings()  # they bound `create` only, which this side never does
    return SqliteTaskStore(path, max_tasks=limits.max_tasks, max_bytes=limits.max_bytes)


def seen_status(record: TaskRecord, running: Running = still_running) -> tuple[str, str | None]:
    """The task's status and message, as they are now: a task still `working` whose
    server is gone (crashed, killed) is failed; the next server to read it writes so."""
    if not record.terminal and not running(record.owner):
        who = describe_owner(record.owner)
        return "failed", f"its server ({who}) stopped before it finished; nothing runs it now"
    return record.status, record.status_message


def progress_text(record: TaskRecord, running: Running = still_running) -> str:
    """`3/10 copying` from the latest progress, or the status message."""
    status, message = seen_status(record, running)
    progress = record.progress or {}
    if status in ("working", "input_required") and "progress" in progress:
        total = f"/{progress['total']:g}" if progress.get("total") is not None else ""
        words = f" {progress['message']}" if progress.get("message") else ""
        return f"{progress['progress']:g}{total}{words}"
    return message or ""


def fraction_done(record: TaskRecord) -> float | None:
    """How far along (0 to 1) a running task is, when its progress has a total."""
    progress = record.progress or {}
    total = progress.get("total")
    if record.terminal or not isinstance(total, int | float) or total <= 0:
        return None
    return max(0.0, min(1.0, float(progress.get("progress", 0)) / total))


def age_text(record: TaskRecord, now: float | None = None) -> str:
    """How long ago the task started: `5 s`, `3 min`, `2 h`, `4 d`."""
    seconds = max(0, int((now if now is not None else time.time()) - record.created_at))
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"


def client_of(record: TaskRecord) -> str:
    """Which kind of client started it: `stdio`, `http` (the token's clients), `http (no auth)`,
    or with OAuth whose it is: `oauth alice (client my-app)`."""
    if record.principal == "http:anonymous":
        return "http (no auth)"
    kind, _, rest = record.principal.partition(":")
    if kind == "oauth":
        try:
            named = json.loads(rest)
            return f"oauth {named.get('subject')} (client {named.get('client')})"
        except (ValueError, AttributeError):
            return kind
    return kind


def find_task(records: list[TaskRecord], given: str) -> TaskRecord:
    """The task whose id is `given`, or the one whose id starts with it."""
    given = given.strip()
    exact = [record for record in records if record.task_id == given]
    matches = exact or [record for record in records if given and record.task_id.startswith(given)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise TaskLookupError(
            f"no task {given!r} (finished tasks are removed when their time to live is over); "
            "`toolkiln tasks` lists them"
        )
    ids = ", ".join(record.task_id[: len(given) + 4] for record in matches)
    raise TaskLookupError(f"{given!r} starts {len(matches)} task ids ({ids}): give more of it")


def result_text(record: TaskRecord) -> str:
    """What a finished task produced, as text: its text content, or its error."""
    if record.error is not None:
        return str(record.error.get("message", ""))
    blocks: list[dict[str, Any]] = (record.result or {}).get("content") or []
    parts = []
    for block in blocks:
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        else:
            parts.append(f"({block.get('type')} content{_mime(block)})")
    return "\n".join(parts)


def _mime(block: dict[str, Any]) -> str:
    return f", {block['mimeType']}" if block.get("mimeType") else ""


def cancel_task(store: TaskStore, record: TaskRecord, message: str) -> TaskRecord:
    """Write the task cancelled. The server running it stops the script's process group
    when it sees that (at once on its own dashboard; within about a second from
    another process: tasks/service.py), and its result is never written over the cancel."""
    status, _ = seen_status(record, store_liveness(store))
    if status in TERMINAL:
        raise TaskLookupError(f"task {record.task_id[:SHORT_ID]} ({record.tool}) has already ended: {status}")
    updated = store.update(record.task_id, status="cancelled", status_message=message)
    if updated is None:
        raise TaskLookupError(f"task {record.task_id[:SHORT_ID]} is gone (its time to live is over)")
    if updated.status != "cancelled":
        raise TaskLookupError(f"task {record.task_id[:SHORT_ID]} ended before the cancel: {updated.status}")
    return updated


def store_liveness(store: TaskStore) -> Running:
    """Whether an owner runs, or may, as `store` tells (each server asked once): a task
    is shown failed only when its server is known to be gone."""
    seen: dict[str, bool] = {}

    def running(owner: Mapping[str, Any]) -> bool:
        name = str(owner.get("instance") or owner.get("pid"))
        if name not in seen:
            seen[name] = store.owner_gone(dict(owner)) is None
        return seen[name]

    return running
