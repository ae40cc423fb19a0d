"""Replicas behind nginx that keep their tasks in one Redis server (the README's
"Running several replicas behind a load balancer", with `TOOLKILN_STATE_URL`).

Tasks started through nginx land on either replica and are polled through nginx,
and directly through each replica: every replica sees every task. Then one replica is
SIGKILLed while tasks run on it: its heartbeat in Redis stops, and the survivor
reports those tasks failed (with the reason) on the next `tasks/get`; the survivor's
own tasks complete. Every task is accounted for, over several rounds: completed or
failed, none lost (unknown) and none left working.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeTool, tune_tool
from tests.serve.redis_server import needs_redis, redis_server
from tests.serve.replicas.test_replicas import PUBLIC_HOST, needs_nginx, nginx, replica
from tests.serve.tasks_wire import RpcError, http_request
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = [needs_nginx, needs_redis]
ROUNDS = 3
TASKS = 6  # per round, through nginx: about half on each replica
SETTLE_SECONDS = 60  # a task neither completed nor failed by then is lost

# Says where it runs while it runs ($RUNNING/<port>.<ticket>.<pid>), then which replica ran it.
LONG = """\
#!/bin/bash
# Tool: long
# Description: Work for a while on a replica, then say which
# @param ticket: The caller's name for this task (type: string, required: true)
# @param seconds: How long to work (type: number, required: true)
running="$RUNNING/$TOOLKILN_SERVER_PORT.$ticket.$$"
touch "$running"
sleep "$seconds"
rm -f "$running"
printf '{"ticket": "%s", "port": %s}\\n' "$ticket" "$TOOLKILN_SERVER_PORT"
"""


@pytest.fixture
def tasked(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("long.sh", LONG)
    assert not discover_tools(tools_dir, config_dir).errors
    tune_tool(config_dir, "long", task="required", timeout_seconds=120)
    build_catalog(config_dir, tools_dir)
    return config_dir


def _where(running: Path, ticket: str) -> tuple[int, int] | None:
    """(port, pid) of the replica and script running `ticket`, while it runs."""
    for name in os.listdir(running):
        port, name_ticket, pid = name.split(".")
        if name_ticket == ticket:
            return int(port), int(pid)
    return None


def _wait_gone(pid: int) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        with open(f"/proc/{pid}/stat") as status:  # a zombie not yet reaped is gone too
            if status.read().rsplit(")", 1)[1].split()[0] == "Z":
                return
        assert time.monotonic() < deadline, f"the cancelled task's script {pid} still runs"
        time.sleep(0.05)


def _settle(get: Any, task_id: str) -> dict[str, Any] | str:
    """Poll until the task has ended: the task, or what went wrong instead."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        try:
            task: dict[str, Any] = get("tasks/get", {"taskId": task_id})
        except RpcError as error:
            return f"error {error.code}: {error}"
        if task["status"] in ("completed", "failed", "cancelled"):
            return task
        time.sleep(0.1)
    return "lost: still working"


def test_tasks_are_shared_and_a_killed_replicas_tasks_fail(tasked: Path, tmp_path: Path) -> None:
    outcomes: list[tuple[str, Any]] = []  # (which replica ran it, how it ended)
    for round_ in range(ROUNDS):
        outcomes += _one_round(tasked, tmp_path / f"round{round_}")
    lost = [outcome for _, outcome in outcomes if isinstance(outcome, str)]
    print(f"\nredis replicas: {len(outcomes)} tasks in {ROUNDS} rounds, {len(lost)} lost")
    assert lost == []
    failed = [o for who, o in outcomes if who == "victim" and o["status"] != "cancelled"]
    cancelled = [o for who, o in outcomes if who == "victim" and o["status"] == "cancelled"]
    completed = [o for who, o in outcomes if who == "survivor"]
    assert len(failed) + len(cancelled) + len(completed) == ROUNDS * TASKS and failed and completed
    assert len(cancelled) == ROUNDS
    for task in failed:
        assert task["status"] == "failed", task
        assert task["error"]["code"] == -32603 and "taken as stopped" in task["error"]["message"]
    assert all(task["status"] == "completed" for task in completed), completed


def _one_round(config_dir: Path, folder: Path) -> list[tuple[str, Any]]:
    folder.mkdir(parents=True)
    running, token_file = folder / "running", folder / "state" / "token"
    running.mkdir()
    with (
        redis_server(folder / "redis") as store,
        replica(
            config_dir, token_file, folder / "replica-a", RUNNING=str(running), TOOLKILN_STATE_URL=store.url
        ) as victim,
        replica(
            config_dir, token_file, folder / "replica-b", RUNNING=str(running), TOOLKILN_STATE_URL=store.url
        ) as survivor,
        nginx(folder / "nginx", [victim.port, survivor.port]) as base_url,
    ):
        token = token_file.read_text().strip()
        through = {
            "nginx": functools.partial(http_request, f"{base_url}/mcp", token, headers={"Host": PUBLIC_HOST}),
            "victim": functools.partial(http_request, f"http://127.0.0.1:{victim.port}/mcp", token),
            "survivor": functools.partial(http_request, f"http://127.0.0.1:{survivor.port}/mcp", token),
        }
        tickets = [f"t{n}" for n in range(TASKS)]
        tasks = {
            ticket: through["nginx"](
                "tools/call", {"name": "long", "arguments": {"ticket": ticket, "seconds": 5}}
            )
            for ticket in tickets
        }
        assert all(task["resultType"] == "task" for task in tasks.values())
        deadline = time.monotonic() + 30
        while not all(_where(running, ticket) for ticket in tickets):
            assert time.monotonic() < deadline, "the tasks' scripts did not start"
            time.sleep(0.05)
        ran_on = {ticket: _where(running, ticket) for ticket in tickets}
        # Every replica sees every task, whichever runs it.
        for task in tasks.values():
            for way in ("victim", "survivor"):
                assert through[way]("tasks/get", {"taskId": task["taskId"]})["status"] == "working"
        assert not (token_file.parent / "tasks.sqlite3").exists()  # Redis, not the shared folder
        # One task cancelled through the replica that does not run it: its script is stopped.
        ticket = next(t for t in tickets if ran_on[t][0] == victim.port)  # type: ignore[index]
        through["survivor"]("tasks/cancel", {"taskId": tasks[ticket]["taskId"]})
        assert through["victim"]("tasks/get", {"taskId": tasks[ticket]["taskId"]})["status"] == "cancelled"
        _wait_gone(ran_on[ticket][1])  # type: ignore[index]
        assert _where(running, ticket), "the script ran to its end: it was not stopped"

        victim.process.send_signal(signal.SIGKILL)
        victim.process.wait()
        outcomes = []
        for ticket, task in tasks.items():
            port, _ = ran_on[ticket]  # type: ignore[misc]
            who = "victim" if port == victim.port else "survivor"
            outcomes.append((who, _settle(through["nginx"], task["taskId"])))
        # The victim's scripts outlived it (a SIGKILLed server cannot stop them): the test does.
        for port, pid in filter(None, ran_on.values()):
            if port == victim.port:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
    return outcomes
