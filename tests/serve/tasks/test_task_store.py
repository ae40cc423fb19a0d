"""The task stores, the embedded one (serve/tasks/sqlite.py) and the shared one
(serve/tasks/redis_store.py, against a real redis-server): bounded, expiring, scoped
to a principal, and a task that has ended is never changed again."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.serve.redis_server import needs_redis, redis_server
from toolkiln.errors import ConfigError
from toolkiln.files import load_server_config
from toolkiln.model import StateSettings, TaskSettings
from toolkiln.serve.sealed_messages import Seals
from toolkiln.serve.tasks.sqlite import SqliteTaskStore
from toolkiln.serve.tasks.store import (
    StoreFullError,
    StoreUnreachableError,
    TaskRecord,
    TaskStore,
    TaskStoreError,
)
from toolkiln.serve.tasks.stores import open_task_store

OpenStore = Callable[..., TaskStore]
SECRET = b"a replicas' secret of at least 32 bytes"


def _task(task_id: str, ttl_ms: int = 60_000, principal: str = "stdio") -> TaskRecord:
    now = time.time()
    return TaskRecord(task_id, principal, "tool", "working", now, now, ttl_ms, 1000, {"pid": 1})


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("redis", marks=needs_redis),
        pytest.param("redis-sealed", marks=needs_redis),
    ]
)
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OpenStore]:
    """Opens a store of the kind under test with the given bounds; each opened store is
    empty (a key prefix of its own in the one redis-server) and closed at the end.
    `redis-sealed`: its records sealed with a replicas' secret."""
    opened: list[TaskStore] = []
    server_context = redis_server(tmp_path / "redis") if request.param != "sqlite" else None
    server = server_context.__enter__() if server_context else None

    def open_one(max_tasks: int = 1000, max_bytes: int = 1_000_000) -> TaskStore:
        limits = TaskSettings(max_tasks=max_tasks, max_bytes=max_bytes)
        name = f"store{len(opened)}"
        state = StateSettings(url=server.url, key_prefix=f"test:{name}:") if server else StateSettings()
        seals = Seals([SECRET], state.key_prefix) if request.param == "redis-sealed" else None
        store = open_task_store(tmp_path / name, limits, state, seals)
        opened.append(store)
        return store

    try:
        yield open_one
    finally:
        for store in opened:
            store.close()
        if server_context is not None:
            server_context.__exit__(None, None, None)


def test_the_store_refuses_new_tasks_past_its_bounds(open_store: OpenStore) -> None:
    store = open_store(max_tasks=2)
    store.create(_task("a"))
    store.create(_task("b"))
    with pytest.raises(StoreFullError, match="at most 2"):
        store.create(_task("c"))
    small = open_store(max_tasks=10, max_bytes=1024)
    big = _task("big")
    big.logs = [{"level": "info", "message": "x" * 2000}]
    with pytest.raises(StoreFullError):
        small.create(big)


def test_an_expired_task_is_gone_and_frees_its_room(open_store: OpenStore) -> None:
    store = open_store(max_tasks=1)
    store.create(_task("short", ttl_ms=1))
    time.sleep(0.01)
    assert store.get("short") is None
    assert store.list() == []
    store.create(_task("next"))  # the expired one no longer counts
    assert store.get("next") is not None


def test_expire_removes_what_has_expired(open_store: OpenStore) -> None:
    store = open_store()
    store.create(_task("short", ttl_ms=1000))
    store.create(_task("long"))
    assert store.expire(time.time() + 2) == 1
    assert [task.task_id for task in store.list()] == ["long"]


def test_an_ended_task_keeps_its_end(open_store: OpenStore) -> None:
    store = open_store()
    store.create(_task("t"))
    store.update("t", status="cancelled")
    after = store.update("t", status="completed", result={"content": []})
    assert after is not None and after.status == "cancelled" and after.result is None
    assert [task.task_id for task in store.list(active_only=True)] == []
    assert store.update("never-made", status="failed") is None


def test_an_update_is_kept_and_read_back_whole(open_store: OpenStore) -> None:
    store = open_store()
    store.create(_task("t"))
    progress = {"progress": 2, "total": 5, "message": "copying ünïcode"}
    changed = store.update("t", progress=progress, logs=[{"level": "info", "message": "hi"}])
    read = store.get("t")
    assert changed is not None and read is not None
    assert (read.progress, read.logs, read.status) == (
        progress,
        [{"level": "info", "message": "hi"}],
        "working",
    )
    assert read.updated_at >= read.created_at
    with pytest.raises(TypeError, match="not fields"):
        store.update("t", colour="red")


def test_tasks_are_listed_by_principal_oldest_first(open_store: OpenStore) -> None:
    store = open_store()
    for task_id, principal in (("a", "http:one"), ("b", "http:two"), ("c", "http:one")):
        store.create(_task(task_id, principal=principal))
        time.sleep(0.002)
    assert [task.task_id for task in store.list("http:one")] == ["a", "c"]
    assert [task.task_id for task in store.list()] == ["a", "b", "c"]


def test_concurrent_updates_never_undo_an_end(open_store: OpenStore) -> None:
    """Progress written from one thread while another cancels: the task ends cancelled,
    whatever the order (the update of a task that has ended changes nothing)."""
    store = open_store()
    store.create(_task("t"))
    stop = threading.Event()

    def write_progress() -> None:
        count = 0
        while not stop.is_set():
            count += 1
            store.update("t", progress={"progress": count})

    writer = threading.Thread(target=write_progress)
    writer.start()
    time.sleep(0.05)
    store.update("t", status="cancelled", status_message="Cancelled by the client.")
    time.sleep(0.05)
    stop.set()
    writer.join()
    final = store.get("t")
    assert final is not None and final.status == "cancelled"


def test_the_store_file_is_private_even_when_it_was_not(tmp_path: Path) -> None:
    path = tmp_path / "state" / "tasks.sqlite3"
    path.parent.mkdir(mode=0o700)
    path.touch(mode=0o644)
    path.chmod(0o644)
    SqliteTaskStore(path, max_tasks=1, max_bytes=1024)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@needs_redis
def test_a_server_heartbeat_says_whether_its_owner_runs(tmp_path: Path) -> None:
    with redis_server(tmp_path / "redis") as server:
        store = open_task_store(tmp_path, TaskSettings(), StateSettings(url=server.url))
        # This very process, on another machine as far as Redis knows: only a heartbeat counts.
        owner = {"pid": os.getpid(), "instance": "abc"}
        assert not store.owner_running(owner)
        store.beat(owner, 0.05)
        assert store.owner_running(owner)
        assert not store.owner_running({"pid": 1, "instance": "other"})
        time.sleep(0.1)
        assert not store.owner_running(owner)  # it stopped beating: gone
        store.close()


@needs_redis
def test_sealed_records_are_read_without_the_secret_and_changed_only_with_it(tmp_path: Path) -> None:
    """`toolkiln tasks` without the replicas' secret lists their sealed tasks, but a
    cancel would write a record they refuse: it is refused, saying what to give."""
    with redis_server(tmp_path / "redis") as server:
        state = StateSettings(url=server.url)
        sealed = open_task_store(tmp_path, TaskSettings(), state, Seals([SECRET], state.key_prefix))
        plain = open_task_store(tmp_path, TaskSettings(), state)
        sealed.create(_task("t"))
        assert [record.task_id for record in plain.list()] == ["t"]
        with pytest.raises(TaskStoreError, match="TOOLKILN_STATE_SECRET_FILE"):
            plain.update("t", status="cancelled")
        updated = sealed.update("t", status="cancelled")
        assert updated is not None and updated.status == "cancelled"
        sealed.close()
        plain.close()


@needs_redis
def test_two_deployments_share_a_redis_server_apart(tmp_path: Path) -> None:
    with redis_server(tmp_path / "redis") as server:
        first, second = (
            open_task_store(tmp_path, TaskSettings(max_tasks=1), StateSettings(url=server.url, key_prefix=p))
            for p in ("one:", "two:")
        )
        first.create(_task("t"))
        second.create(_task("u"))  # the other's task takes none of its room
        assert second.get("t") is None and first.get("u") is None
        first.close()
        second.close()


@needs_redis
def test_a_redis_that_is_down_is_named_without_its_password(tmp_path: Path) -> None:
    with redis_server(tmp_path / "redis", password="s3cret-pass") as server:
        # A password comes from TOOLKILN_STATE_URL, which `serve` puts in place of the file's URL.
        state = StateSettings().model_copy(update={"url": server.url})
        store = open_task_store(tmp_path, TaskSettings(), state)
        store.create(_task("t"))
        wrong_url = server.url.replace("s3cret-pass", "wrong-pass")
        wrong = open_task_store(tmp_path, TaskSettings(), state.model_copy(update={"url": wrong_url}))
        with pytest.raises(StoreUnreachableError) as refused:
            wrong.get("t")
        server.stop()
        with pytest.raises(StoreUnreachableError) as down:
            store.get("t")
        store.close()
        wrong.close()
    for error in (refused.value, down.value):
        assert f"redis://:***@127.0.0.1:{server.port}/0" in str(error)
        assert "pass" not in str(error).replace("password", "")
    assert "cannot be reached" in str(down.value)


def test_a_server_without_a_state_url_never_imports_redis(tmp_path: Path) -> None:
    code = (
        "import sys, pathlib; from toolkiln.model import StateSettings, TaskSettings; "
        "import toolkiln.serve; from toolkiln.serve.tasks.stores import open_task_store; "
        f"open_task_store(pathlib.Path({str(tmp_path)!r}), TaskSettings(), StateSettings()).close(); "
        "print('redis' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_a_password_in_server_json_is_refused_without_being_shown(tmp_path: Path) -> None:
    (tmp_path / "server.json").write_text(
        json.dumps({"state": {"url": "redis://:hunter2-secret@db:6379/0"}}, indent=2)
    )
    with pytest.raises(ConfigError) as refused:
        load_server_config(tmp_path)
    message = str(refused.value)
    assert "state.url" in message and "TOOLKILN_STATE_URL" in message
    assert "hunter2" not in message
    (tmp_path / "server.json").write_text(json.dumps({"state": {"url": "http://db:6379"}}))
    with pytest.raises(ConfigError, match="not a Redis URL"):
        load_server_config(tmp_path)
