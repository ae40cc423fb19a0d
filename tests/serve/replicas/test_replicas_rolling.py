"""A rolling restart of two replicas behind nginx, under load, with their tasks in Redis
(docs/operations.md, "Rolling restart").

Eight clients call through nginx all the time (the SDK's client in both protocol eras,
and plain JSON-RPC posts): one replica gets SIGTERM while a task and calls run on it;
it drains (closes its listener: nginx passes new requests to the other replica; lets
what runs finish), exits 0 without a traceback, and is started again on its port; then
the other. No call fails, none is tried twice, and the task running on the first
replica when it was told to stop completes there.
"""

from __future__ import annotations

import contextlib
import functools
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import MakeTool, tune_tool
from tests.serve.redis_server import needs_redis, redis_server
from tests.serve.replicas.test_replicas import (
    RECORD,
    WHERE,
    Replica,
    Run,
    _set_user_keys,
    free_port,
    needs_nginx,
    nginx,
    replica,
    wait_until,
    write_secret,
)
from tests.serve.tasks_wire import http_request
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = [needs_nginx, needs_redis]
CLIENTS = ("legacy1", "legacy2", "legacy3", "auto1", "auto2", "auto3", "rpc1", "rpc2")
CALLS_BETWEEN = 8  # calls answered between two steps of the restart
STOP_SECONDS = 60

# Works for `seconds`, then says which replica ran it.
LONG = """\
#!/bin/bash
# Tool: long
# Description: Work for a while on a replica, then say which
# @param seconds: How long to work (type: number, required: true)
touch "$RUNNING/long.$TOOLKILN_SERVER_PORT"
sleep "$seconds"
printf '{"port": %s}\\n' "$TOOLKILN_SERVER_PORT"
"""


@pytest.fixture
def rolling(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("where.sh", WHERE)
    make_tool("record.sh", RECORD)
    make_tool("long.sh", LONG)
    assert not discover_tools(tools_dir, config_dir).errors
    _set_user_keys(config_dir / "tools" / "where.json", read_only=True, idempotent=True)
    _set_user_keys(config_dir / "tools" / "record.json", read_only=False, idempotent=False)
    tune_tool(config_dir, "long", task="required", timeout_seconds=120)
    build_catalog(config_dir, tools_dir)
    return config_dir


def stop(server: Replica) -> tuple[int, str]:
    """SIGTERM, as systemd or `docker stop` sends it; (exit code, stderr) once it ended."""
    server.process.send_signal(signal.SIGTERM)
    try:
        code = server.process.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        server.process.kill()
        raise AssertionError("the replica did not stop within its drain") from None
    stderr = Path(server.audit_log.parent / "stderr").read_text()
    return code, stderr


@contextlib.contextmanager
def started(config_dir: Path, token_file: Path, folder: Path, port: int, **env: str) -> Iterator[Replica]:
    with replica(
        config_dir, token_file, folder, "--port", str(port), "--drain-seconds", "30", **env
    ) as server:
        assert server.port == port
        yield server


@pytest.mark.anyio
async def test_a_rolling_restart_under_load_fails_no_call(rolling: Path, tmp_path: Path) -> None:
    running, ledger, token_file = tmp_path / "running", tmp_path / "ledger", tmp_path / "state" / "token"
    running.mkdir()
    ports = {"a": free_port(), "b": free_port()}
    with contextlib.ExitStack() as stack:
        store = stack.enter_context(redis_server(tmp_path / "redis", password="redis-password-0123"))
        env = {
            "RUNNING": str(running),
            "LEDGER": str(ledger),
            "TOOLKILN_STATE_URL": store.url,
            "TOOLKILN_STATE_SECRET_FILE": str(write_secret(tmp_path / "secret")),
        }
        servers = {
            name: stack.enter_context(started(rolling, token_file, tmp_path / f"{name}-1", port, **env))
            for name, port in ports.items()
        }
        base_url = stack.enter_context(nginx(tmp_path / "nginx", list(ports.values())))
        token = token_file.read_text().strip()
        run = Run(base_url, token)
        stopped: dict[str, tuple[int, str]] = {}
        task_ended: dict[str, Any] = {}

        def answered() -> int:
            return sum(1 for call in run.calls if call.port is not None)

        async def enough_calls() -> None:
            before = answered()
            await wait_until(lambda: answered() >= before + CALLS_BETWEEN, "calls through nginx")

        async def answered_by(port: int, since: int) -> None:
            await wait_until(
                lambda: sum(1 for call in run.calls[since:] if call.port == port) >= CALLS_BETWEEN,
                f"calls answered by the replica started again on port {port}",
            )

        async with anyio.create_task_group() as group:
            for client in CLIENTS:
                kind = client[:-1]
                connect = run.rpc_client if kind == "rpc" else functools.partial(run.sdk_client, kind)
                group.start_soon(run.drive, client, connect)
            await enough_calls()
            for restart, name in enumerate(("a", "b"), start=2):
                server = servers[name]
                task: dict[str, Any] = {}
                if name == "a":  # a task running on the replica told to stop
                    long_call = {"name": "long", "arguments": {"seconds": 3}}
                    url = f"http://127.0.0.1:{server.port}/mcp"
                    task = await anyio.to_thread.run_sync(http_request, url, token, "tools/call", long_call)
                    assert task["resultType"] == "task", task
                    mark = running / f"long.{server.port}"
                    await wait_until(mark.exists, "the task to start")
                stopped[name] = await anyio.to_thread.run_sync(stop, server)
                if task:  # read through the other replica: the state is in Redis
                    other = f"http://127.0.0.1:{servers['b'].port}/mcp"
                    asked = {"taskId": task["taskId"]}
                    task_ended = await anyio.to_thread.run_sync(
                        http_request, other, token, "tasks/get", asked
                    )
                await enough_calls()  # all on the other replica meanwhile
                servers[name] = stack.enter_context(
                    started(rolling, token_file, tmp_path / f"{name}-{restart}", ports[name], **env)
                )
                # Back in nginx's rotation (after its fail_timeout) before the next one stops.
                await answered_by(ports[name], since=len(run.calls))
            run.stopping.set()

    calls = run.calls
    failed = [call for call in calls if call.failure is not None or call.lost]
    retried = [call for call in calls if call.attempts > 1]
    by_port = {port: sum(1 for c in calls if c.port == port) for port in ports.values()}
    print(
        f"\nrolling restart behind nginx: {len(calls)} calls from {len(CLIENTS)} clients, "
        f"{len(failed)} failed, {len(retried)} tried again; answered per port {by_port}"
    )
    assert failed == [], failed
    assert retried == [], retried
    for name, (code, stderr) in stopped.items():
        assert code == 0, (name, stderr)
        assert "Traceback" not in stderr and "timeout graceful shutdown exceeded" not in stderr, stderr
        assert "draining on SIGTERM" in stderr and "drained: no call or task running" in stderr
    # The task the first replica ran when it was told to stop finished there.
    assert task_ended["status"] == "completed", task_ended
    # Nothing ran twice.
    tickets = [line.split()[0] for line in ledger.read_text().splitlines()]
    assert len(tickets) == len(set(tickets))
