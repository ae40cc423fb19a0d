"""A Redis outage under running tasks: two `serve --http --stateless` replicas share one
Redis (kept on disk, as a service's is) and a secret; tasks run on both; Redis is
stopped for longer than a heartbeat lasts, while the tasks finish, and started again.

No task is failed for it: a heartbeat that lapsed while Redis was away says nothing
about its server (serve/tasks/redis_store.py `owner_gone`), and a task that ended
meanwhile keeps its result, which its replica writes once Redis is back
(serve/tasks/service.py). Every result is then read through either replica. `/ready` says
the store is unreachable while it is, and `/health` stays ok. A replica that is really
gone (SIGKILL) still has its task failed, with a message that says only what is known.
"""

from __future__ import annotations

import functools
import json
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.conftest import MakeTool, tune_tool
from tests.serve.redis_server import needs_redis, redis_server
from tests.serve.replicas.test_replicas import Replica, replica, write_secret
from tests.serve.tasks_wire import http_request
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.serve.sealed_messages import HEARTBEAT_SECONDS

pytestmark = needs_redis
WORK_SECONDS = 3  # each task's; it ends while Redis is away
OUTAGE_SECONDS = HEARTBEAT_SECONDS + WORK_SECONDS + 2  # longer than a heartbeat lasts
SETTLE_SECONDS = 60  # a task not completed by then is lost

SLOW = """\
#!/bin/bash
# Tool: slow
# Description: Work for a while, then say which replica did
# @param ticket: The caller's name for this task (type: string, required: true)
# @param seconds: How long to work (type: number, required: true)
sleep "$seconds"
printf '{"ticket": "%s", "port": %s}\\n' "$ticket" "$TOOLKILN_SERVER_PORT"
"""


@pytest.fixture
def tasked(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("slow.sh", SLOW)
    assert not discover_tools(tools_dir, config_dir).errors
    tune_tool(config_dir, "slow", task="required", timeout_seconds=300)
    secret = write_secret(config_dir.parent / "replicas-secret")
    (config_dir / "server.json").write_text(json.dumps({"state": {"secret_file": str(secret)}}))
    build_catalog(config_dir, tools_dir)
    return config_dir


def _probe(server: Replica, path: str) -> httpx2.Response:
    return httpx2.get(f"http://127.0.0.1:{server.port}{path}", timeout=10)


def _until(check: Any, seconds: float = SETTLE_SECONDS) -> Any:
    deadline = time.monotonic() + seconds
    while not (answer := check()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return answer


def test_a_redis_outage_fails_no_task_and_loses_no_result(tasked: Path, tmp_path: Path) -> None:
    token_file = tmp_path / "state" / "token"
    with (
        redis_server(tmp_path / "redis", persistent=True) as store,
        replica(tasked, token_file, tmp_path / "a", TOOLKILN_STATE_URL=store.url) as first,
        replica(tasked, token_file, tmp_path / "b", TOOLKILN_STATE_URL=store.url) as second,
    ):
        token = token_file.read_text().strip()
        calls = {
            server.port: functools.partial(http_request, f"http://127.0.0.1:{server.port}/mcp", token)
            for server in (first, second)
        }
        started: dict[str, tuple[Replica, str]] = {}  # task id: (its replica, its ticket)
        for server in (first, second, first, second):
            ticket = f"t{len(started)}"
            arguments = {"ticket": ticket, "seconds": WORK_SECONDS}
            created = calls[server.port]("tools/call", {"name": "slow", "arguments": arguments})
            started[created["taskId"]] = (server, ticket)
        # One more that is still running when its replica is killed, after the outage.
        doomed = calls[second.port](
            "tools/call", {"name": "slow", "arguments": {"ticket": "d", "seconds": 600}}
        )
        for task_id in [*started, doomed["taskId"]]:
            assert calls[first.port]("tasks/get", {"taskId": task_id})["status"] == "working"
        assert all(_probe(server, "/ready").status_code == 200 for server in (first, second))

        store.stop()
        # Each replica says it should get no new work, and why; it is alive all the same.
        for server in (first, second):
            refused = _until(lambda s=server: _probe(s, "/ready").status_code == 503 and _probe(s, "/ready"))
            assert refused, "/ready did not report the store"
            assert refused.json() == {
                "status": "not ready",
                "reasons": {"task-store": "the shared task store (state.url) cannot be reached"},
            }
            assert _probe(server, "/health").status_code == 200
        time.sleep(OUTAGE_SECONDS)  # the tasks end meanwhile; every heartbeat in Redis lapses
        store.start()
        back = time.monotonic()

        # Read through the replica that did not run it, first: never failed, and its result arrives.
        seen: dict[str, list[str]] = {task_id: [] for task_id in started}
        for task_id, (owner, ticket) in started.items():
            other = second if owner is first else first

            def ended(task_id: str = task_id, other: Replica = other) -> dict[str, Any] | None:
                task: dict[str, Any] = calls[other.port]("tasks/get", {"taskId": task_id})
                seen[task_id].append(task["status"])
                return task if task["status"] not in ("working", "input_required") else None

            task = _until(ended)
            assert task is not None, f"task {ticket} never ended: {seen[task_id][-1]}"
            assert task["status"] == "completed", task
            for server in (first, second):
                read = calls[server.port]("tasks/get", {"taskId": task_id})
                assert read["result"]["structuredContent"] == {"ticket": ticket, "port": owner.port}
        assert all("failed" not in statuses for statuses in seen.values()), seen
        waited = time.monotonic() - back
        print(f"\nredis outage: {len(started)} results read {waited:.1f} s after Redis was back")
        assert _until(lambda: all(_probe(s, "/ready").status_code == 200 for s in (first, second)))

        # A replica that is really gone: its task is failed, saying what is known.
        second.process.kill()
        second.process.wait()

        def failed() -> dict[str, Any] | None:
            task: dict[str, Any] = calls[first.port]("tasks/get", {"taskId": doomed["taskId"]})
            return task if task["status"] != "working" else None

        killed = time.monotonic()
        task = _until(failed)
        print(
            f"redis outage: a killed replica's task failed {time.monotonic() - killed:.1f} s after its kill"
        )
        assert task is not None and task["status"] == "failed", task
        message = task["statusMessage"]
        assert f"pid {second.process.pid} on host" in message and "has not renewed its heartbeat" in message
        assert "taken as stopped" in message and "never reached the task store" in message
    logs = (tmp_path / "a" / "stderr").read_text() + (tmp_path / "b" / "stderr").read_text()
    assert "Traceback" not in logs
