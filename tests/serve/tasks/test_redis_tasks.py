"""Tasks kept in Redis (`TOOLKILN_STATE_URL`), against a real redis-server: the same
tasks over HTTP as with the embedded store, a password never printed, and a Redis
that goes down under a running server (what needs no shared state goes on; the rest
fails with an error that names the store)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
import redis

from tests.conftest import MakeTool, tune_tool
from tests.serve.http_server import http_server
from tests.serve.redis_server import needs_redis, redis_server
from tests.serve.tasks_wire import RpcError, http_request, wait_for
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = needs_redis
PASSWORD = "correct-horse-battery"
SLOW = """\
#!/usr/bin/env python3
# Tool: slow
# Description: Works for a while, saying how far it got
# @param seconds: how long to work (type: number, required: false, default: 0)
import json, sys, time
seconds = json.loads(sys.stdin.read() or "{}").get("seconds", 0)
print("PROGRESS 1/2 halfway", file=sys.stderr, flush=True)
time.sleep(seconds)
print(f"worked {seconds} s")
"""
ONLY_TASK = """\
#!/bin/sh
# Tool: only_task
# Description: Runs only as a task
echo done
"""


@pytest.fixture
def project(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("slow.py", SLOW)
    make_tool("only_task.sh", ONLY_TASK)
    assert not discover_tools(tools_dir, config_dir).errors
    tune_tool(config_dir, "slow", timeout_seconds=120)
    tune_tool(config_dir, "only_task", task="required")
    (config_dir / "server.json").write_text(json.dumps({"state": {"key_prefix": "deploy-a:"}}))
    build_catalog(config_dir, tools_dir)
    return config_dir


def _text(result: dict[str, object]) -> str:
    return "\n".join(block["text"] for block in result["content"])  # type: ignore[attr-defined]


def test_a_task_over_http_lives_in_redis(project: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    with (
        redis_server(tmp_path / "redis", password=PASSWORD) as store,
        http_server(project, state, TOOLKILN_STATE_URL=store.url) as server,
    ):
        call = functools.partial(http_request, server.mcp_url, server.token)
        created = call("tools/call", {"name": "slow", "arguments": {"seconds": 0.5}})
        assert created["resultType"] == "task"
        done = wait_for(call, created["taskId"], "completed")
        assert _text(done["result"]) == "worked 0.5 s"
        # In Redis, under the configured prefix, expiring; nothing in the state folder.
        client = redis.Redis.from_url(store.url, decode_responses=True)
        key = f"deploy-a:task:{created['taskId']}"
        assert json.loads(client.get(key))["status"] == "completed"  # type: ignore[arg-type]
        assert 0 < client.pttl(key) <= created["ttlMs"]
        client.close()
        assert not (state / "tasks.sqlite3").exists()
        log = server.log_file.read_text()
    assert f"redis://:***@127.0.0.1:{store.port}/0" in log
    assert PASSWORD not in log
    # Shared tasks without a shared secret: the operator is told what will not work.
    assert "but no secret" in log and "state.secret_file" in log
    assert "nothing replicas tell each other through Redis can be verified, none is told or believed" in log


def test_redis_down_fails_only_what_needs_it_and_says_so(project: Path, tmp_path: Path) -> None:
    with (
        redis_server(tmp_path / "redis", password=PASSWORD) as store,
        http_server(project, tmp_path / "state", TOOLKILN_STATE_URL=store.url) as server,
    ):
        call = functools.partial(http_request, server.mcp_url, server.token)
        running = call("tools/call", {"name": "slow", "arguments": {"seconds": 5}})["taskId"]
        wait_for(call, running, "working")
        store.stop()

        # tasks/get of the running task: the store is unreachable, and named.
        with pytest.raises(RpcError) as unreachable:
            call("tasks/get", {"taskId": running})
        assert unreachable.value.code == -32603
        assert f"task store redis://:***@127.0.0.1:{store.port}/0 cannot be reached" in str(unreachable.value)
        # A tool that may run either way runs as a plain call; one that must be a task is refused.
        plain = call("tools/call", {"name": "slow", "arguments": {"seconds": 0}})
        assert plain.get("resultType") != "task" and _text(plain) == "worked 0 s"
        with pytest.raises(RpcError) as refused:
            call("tools/call", {"name": "only_task", "arguments": {}})
        assert refused.value.code == -32603
        assert "No task can start now" in str(refused.value) and "cannot be reached" in str(refused.value)
        # A client that does not follow tasks needs no shared state at all.
        without_tasks = call("tools/call", {"name": "slow", "arguments": {"seconds": 0}}, {})
        assert _text(without_tasks) == "worked 0 s"
        for error in (unreachable.value, refused.value):
            assert PASSWORD not in str(error)

        # Redis back (empty: nothing was saved): new tasks work again.
        store.start()
        again = call("tools/call", {"name": "only_task", "arguments": {}})
        assert _text(wait_for(call, again["taskId"], "completed")["result"]) == "done"
        assert server.process.poll() is None
        log = server.log_file.read_text()
    assert PASSWORD not in log
