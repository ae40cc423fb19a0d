"""The embedded task store: one SQLite file under the state folder (stdlib `sqlite3`).

The file holds tool results, which may hold secrets: it is created 0600 in a 0700
folder (SQLite gives its -wal and -shm files the same mode). WAL mode lets several
servers of one user (each stdio client starts its own) share it. It is bounded: at
most `max_tasks` tasks and `max_bytes` of their JSON; a create beyond either, once
the expired ones are gone, is refused (`StoreFullError`).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from toolkiln.liveness import still_running
from toolkiln.serve.tasks.store import (
    FIELDS,
    TERMINAL,
    StoreFullError,
    TaskRecord,
    describe_owner,
    dump_record,
    load_record,
)

logger = logging.getLogger(__name__)

_COLUMNS = ("task_id", "principal", "status", "expires_at")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (
    task_id TEXT PRIMARY KEY,
    principal TEXT NOT NULL,
    status TEXT NOT NULL,
    expires_at REAL NOT NULL,
    size INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tasks_expiry ON tasks (expires_at);
"""


class SqliteTaskStore:
    """`TaskStore` in a SQLite file; safe to call from several threads."""

    def __init__(self, path: Path, *, max_tasks: int, max_bytes: int) -> None:
        self.path = path
        self.max_tasks = max_tasks
        self.max_bytes = max_bytes
        _private_file(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, timeout=10, check_same_thread=False, isolation_level=None)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # durable against a crash of the process
            self._db.executescript(_SCHEMA)

    def create(self, record: TaskRecord) -> None:
        body = dump_record(record)
        with self._lock, _transaction(self._db):
            self._expire(time.time())
            count, size = self._db.execute("SELECT count(*), coalesce(sum(size), 0) FROM tasks").fetchone()
            if count >= self.max_tasks or size + len(body) > self.max_bytes:
                raise StoreFullError(
                    f"the task store holds {count} tasks and {size} bytes "
                    f"(at most {self.max_tasks} and {self.max_bytes}: config/server.json `tasks`)"
                )
            self._db.execute(
                "INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?)",
                (record.task_id, record.principal, record.status, record.expires_at, len(body), body),
            )

    def get(self, task_id: str) -> TaskRecord | None:
        with self._lock:
            row = self._db.execute(
                "SELECT body FROM tasks WHERE task_id = ? AND expires_at > ?", (task_id, time.time())
            ).fetchone()
        return load_record(row[0]) if row else None

    def update(self, task_id: str, **changes: Any) -> TaskRecord | None:
        unknown = set(changes) - FIELDS
        if unknown:
            raise TypeError(f"not fields of a task: {sorted(unknown)}")
        with self._lock, _transaction(self._db):
            row = self._db.execute("SELECT body FROM tasks WHERE task_id = ?", (task_id,)).fetchone()
            if row is None:
                return None
            record = load_record(row[0])
            if record.status in TERMINAL:
                return record
            for name, value in changes.items():
                setattr(record, name, value)
            record.updated_at = time.time()
            body = dump_record(record)
            self._db.execute(
                "UPDATE tasks SET status = ?, expires_at = ?, size = ?, body = ? WHERE task_id = ?",
                (record.status, record.expires_at, len(body), body, task_id),
            )
            return record

    def list(self, principal: str | None = None, *, active_only: bool = False) -> list[TaskRecord]:
        query, values = "SELECT body FROM tasks WHERE expires_at > ?", [str(time.time())]
        if principal is not None:
            query, values = query + " AND principal = ?", [*values, principal]
        if active_only:
            query += " AND status NOT IN ('completed', 'failed', 'cancelled')"
        with self._lock:
            rows = self._db.execute(query + " ORDER BY rowid", values).fetchall()
        return [load_record(row[0]) for row in rows]

    def expire(self, now: float) -> int:
        with self._lock, _transaction(self._db):
            return self._expire(now)

    def _expire(self, now: float) -> int:
        return self._db.execute("DELETE FROM tasks WHERE expires_at <= ?", (now,)).rowcount

    def beat(self, owner: dict[str, Any], seconds: float) -> None:
        """Nothing to say: the servers of one file run on one machine, which sees their
        processes (liveness.py)."""

    def owner_running(self, owner: dict[str, Any]) -> bool:
        return still_running(owner)

    def owner_gone(self, owner: dict[str, Any]) -> str | None:
        """The process table of this machine says so for certain."""
        if still_running(owner):
            return None
        return f"its server ({describe_owner(owner)}) has stopped (it no longer runs on this machine)"

    def close(self) -> None:
        with self._lock:
            self._db.close()


class _transaction:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on an exception): the write lock is taken at
    once, so two servers never both read a task and then both write it."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


def _private_file(path: Path) -> None:
    """The folder 0700 and the file 0600, made so before SQLite opens it; an existing
    file readable by others is made private (it is ours, and holds results)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        mode = os.fstat(descriptor).st_mode & 0o777
        if mode & 0o077:
            logger.warning("%s could be read by other users (mode %o); made it 0600", path, mode)
            os.fchmod(descriptor, 0o600)
    finally:
        os.close(descriptor)
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists() and companion.stat().st_mode & 0o077:
            companion.chmod(0o600)
