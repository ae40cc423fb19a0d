"""The Tasks panel of a replica sharing a Redis store: a task that a server on another
machine runs (its pid means nothing here, its heartbeat in Redis says it runs) is shown
working, as the store tells, not failed by this machine's process table."""

from __future__ import annotations

import re
import secrets
import time
from pathlib import Path

from tests.serve.dashboard.conftest import Browser
from tests.serve.http_server import http_server
from tests.serve.redis_server import needs_redis, redis_server
from toolkiln.serve.tasks.redis_store import RedisTaskStore
from toolkiln.serve.tasks.store import TaskRecord

pytestmark = needs_redis
ELSEWHERE = {"pid": 4_194_000, "boot_id": "another-machine's-boot", "host": "far", "instance": "far-1"}


def _task_of_another_machine(url: str) -> TaskRecord:
    store = RedisTaskStore(url, prefix="toolkiln:", max_tasks=100, max_bytes=1_000_000)
    now = time.time()
    record = TaskRecord(
        task_id=secrets.token_hex(24),
        principal="someone",
        tool="nightly_backup",
        status="working",
        created_at=now,
        updated_at=now,
        ttl_ms=600_000,
        poll_interval_ms=500,
        owner=ELSEWHERE,
        progress={"progress": 3, "total": 10, "message": "copying"},
    )
    store.create(record)
    store.beat(ELSEWHERE, 600)  # that server is alive
    store.close()
    return record


def test_a_task_run_on_another_machine_shows_working_not_failed(project: Path, tmp_path: Path) -> None:
    with redis_server(tmp_path / "redis") as redis:
        record = _task_of_another_machine(redis.url)
        with (
            http_server(project, tmp_path / "state", TOOLKILN_STATE_URL=redis.url) as server,
            Browser(server) as browser,
        ):
            assert browser.login().status_code == 303
            panel = browser.http.get("/dashboard/tasks").text
            row = panel[panel.index("nightly_backup") :]
            assert "working" in row[:2000] and "3/10 copying" in row[:2000]
            assert "failed" not in panel
            [handle] = re.findall(r'data-task="([^"]+)"', panel)
            detail = browser.http.get(f"/dashboard/tasks/{handle}").text
            assert "working" in detail and "stopped before it finished" not in detail
        assert record.task_id not in panel
