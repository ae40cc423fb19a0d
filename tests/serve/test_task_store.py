"""The embedded task store (serve/tasks/sqlite.py): bounded, expiring, private, and a
task that has ended is never changed again."""

from __future__ import annotations

import stat
import time
from pathlib import Path

import pytest

from toolkiln.serve.tasks import StoreFullError, TaskRecord
from toolkiln.serve.tasks.sqlite import SqliteTaskStore


def _task(task_id: str, ttl_ms: int = 60_000) -> TaskRecord:
    now = time.time()
    return TaskRecord(task_id, "stdio", "tool", "working", now, now, ttl_ms, 1000, {"pid": 1})


def test_the_store_refuses_new_tasks_past_its_bounds(tmp_path: Path) -> None:
    store = SqliteTaskStore(tmp_path / "state" / "tasks.sqlite3", max_tasks=2, max_bytes=1_000_000)
    store.create(_task("a"))
    store.create(_task("b"))
    with pytest.raises(StoreFullError, match="at most 2"):
        store.create(_task("c"))
    small = SqliteTaskStore(tmp_path / "small.sqlite3", max_tasks=10, max_bytes=1024)
    big = _task("big")
    big.logs = [{"level": "info", "message": "x" * 2000}]
    with pytest.raises(StoreFullError):
        small.create(big)


def test_an_expired_task_is_gone_and_frees_its_room(tmp_path: Path) -> None:
    store = SqliteTaskStore(tmp_path / "tasks.sqlite3", max_tasks=1, max_bytes=1_000_000)
    store.create(_task("short", ttl_ms=1))
    time.sleep(0.01)
    assert store.get("short") is None
    store.create(_task("next"))  # the expired one no longer counts
    assert store.get("next") is not None


def test_an_ended_task_keeps_its_end(tmp_path: Path) -> None:
    store = SqliteTaskStore(tmp_path / "tasks.sqlite3", max_tasks=10, max_bytes=1_000_000)
    store.create(_task("t"))
    store.update("t", status="cancelled")
    after = store.update("t", status="completed", result={"content": []})
    assert after is not None and after.status == "cancelled" and after.result is None
    assert [task.task_id for task in store.list(active_only=True)] == []


def test_the_store_file_is_private_even_when_it_was_not(tmp_path: Path) -> None:
    path = tmp_path / "state" / "tasks.sqlite3"
    path.parent.mkdir(mode=0o700)
    path.touch(mode=0o644)
    path.chmod(0o644)
    SqliteTaskStore(path, max_tasks=1, max_bytes=1024)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
