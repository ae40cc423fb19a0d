"""Task status notifications (SEP-2663; serve/tasks/listen.py): `notifications/tasks` on
a `subscriptions/listen` stream that names `taskIds`, from a real server over stdio and
HTTP, and what a client that names tasks not its own learns (nothing)."""

from __future__ import annotations

import functools
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeTool, tune_tool
from tests.serve.http_server import http_server
from tests.serve.tasks_wire import (
    RpcError,
    StdioWire,
    http_listen,
    http_request,
    read_pids,
    wait_for,
    wait_gone,
)
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.serve.tasks.listen import MAX_TASK_IDS
from toolkiln.serve.tasks.stream_slots import PER_CLIENT

SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
# Works until the test says so (a file named `go` appears), then says it is done.
WAIT = """\
#!/usr/bin/env python3
# Tool: wait
# Description: Waits for a file named go
import os, pathlib, sys, time
pathlib.Path("pids").write_text(f"{os.getpid()} {os.getpid()}")
while not pathlib.Path("go").exists():
    time.sleep(0.05)
print("done")
"""
ASK = """\
#!/usr/bin/env python3
# Tool: ask
# Description: Asks a name once at work, then greets it
import json, sys
sys.stdin.readline()
print("PROGRESS 1/2 at work", file=sys.stderr, flush=True)
question = {"method": "elicitation/create", "params": {"message": "Who?", "requestedSchema": {
    "type": "object", "properties": {"name": {"type": "string"}}}}}
print("INPUT " + json.dumps({"who": question}), file=sys.stderr, flush=True)
print("hello " + json.loads(sys.stdin.readline())["who"]["content"]["name"])
"""


@pytest.fixture
def project(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("wait.py", WAIT)
    assert not discover_tools(tools_dir, config_dir).errors
    tune_tool(config_dir, "wait", task="required", timeout_seconds=600)
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.fixture
def stdio(project: Path, tmp_path: Path) -> Iterator[StdioWire]:
    server = StdioWire(project, tmp_path / "home", tmp_path / "server.log")
    yield server
    server.close()


def _of(subscription: int) -> Any:
    def wanted(message: dict[str, Any]) -> bool:
        params = message.get("params") or {}
        return bool((params.get("_meta") or {}).get(SUBSCRIPTION) == subscription)

    return wanted


def _task(notification: dict[str, Any]) -> dict[str, Any]:
    assert notification["method"] == "notifications/tasks"
    params = dict(notification["params"])
    meta = dict(params.pop("_meta"))
    del meta[SUBSCRIPTION]
    return {**params, **({"_meta": meta} if meta else {})}


def _as_polled(task: dict[str, Any]) -> dict[str, Any]:
    """A `tasks/get` answer without what makes it an answer (its result type, and the
    server's name the SDK adds to every result)."""
    polled = {key: value for key, value in task.items() if key != "resultType"}
    meta = {key: value for key, value in polled.pop("_meta", {}).items() if key != SERVER_INFO}
    return {**polled, **({"_meta": meta} if meta else {})}


def test_a_stream_tells_each_status_of_the_tasks_it_names_over_stdio(
    stdio: StdioWire, tools_dir: Path
) -> None:
    done = stdio.request("tools/call", {"name": "wait", "arguments": {}})["taskId"]
    cancelled = stdio.request("tools/call", {"name": "wait", "arguments": {}})["taskId"]
    listen = stdio.send(
        "subscriptions/listen",
        {"notifications": {"taskIds": [done, cancelled, "no-such-task"], "toolsListChanged": True}},
    )
    of_stream = _of(listen)
    ack = stdio.receive(of_stream, "the acknowledgement")
    assert ack["method"] == "notifications/subscriptions/acknowledged"
    assert ack["params"]["notifications"] == {"taskIds": [done, cancelled], "toolsListChanged": True}
    # First each task as it is now, then its changes, each as tasks/get gives it.
    now = {_task(stdio.receive(of_stream))["taskId"] for _ in range(2)}
    assert now == {done, cancelled}
    stdio.request("tasks/cancel", {"taskId": cancelled})
    told = _task(stdio.receive(of_stream, "the cancellation"))
    assert told["taskId"] == cancelled and told["status"] == "cancelled"
    (tools_dir / "go").write_text("")
    told = _task(stdio.receive(of_stream, "the result"))
    assert told["taskId"] == done and told["status"] == "completed"
    assert told["result"]["content"] == [{"type": "text", "text": "done"}]
    assert told == _as_polled(stdio.request("tasks/get", {"taskId": done}))
    # Each status once: nothing more came for either task.
    stdio.request("tasks/get", {"taskId": done})
    assert not [message for message in stdio.inbox if of_stream(message)]


@pytest.fixture
def asking(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    """A config folder whose tool `ask` runs as a task and asks a question through it."""
    make_tool("ask.py", ASK)
    assert not discover_tools(tools_dir, config_dir).errors
    tune_tool(config_dir, "ask", task="required", interactive=True, ask_before_task=False)
    build_catalog(config_dir, tools_dir)
    return config_dir


def test_questions_and_answers_of_a_task_are_told_as_they_change(asking: Path, tmp_path: Path) -> None:
    server = StdioWire(asking, tmp_path / "home", tmp_path / "server.log")
    try:
        task_id = server.request("tools/call", {"name": "ask", "arguments": {}})["taskId"]
        of_stream = _of(server.send("subscriptions/listen", {"notifications": {"taskIds": [task_id]}}))
        server.receive(of_stream, "the acknowledgement")
        statuses = [_task(server.receive(of_stream))]
        while statuses[-1]["status"] != "input_required":
            statuses.append(_task(server.receive(of_stream)))
        asked = statuses[-1]["inputRequests"]
        [key] = asked
        assert asked[key]["method"] == "elicitation/create"
        server.request(
            "tasks/update",
            {"taskId": task_id, "inputResponses": {key: {"action": "accept", "content": {"name": "Ada"}}}},
        )
        while statuses[-1]["status"] != "completed":
            statuses.append(_task(server.receive(of_stream)))
        assert statuses[-1]["result"]["content"][0]["text"] == "hello Ada"
        assert [task["status"] for task in statuses][-3:] == ["input_required", "working", "completed"]
    finally:
        server.close()


def test_a_listen_for_tasks_needs_the_extension_and_a_short_list_of_ids(stdio: StdioWire) -> None:
    with pytest.raises(RpcError) as undeclared:
        stdio.request("subscriptions/listen", {"notifications": {"taskIds": ["x"]}}, capabilities={})
    assert undeclared.value.code == -32021
    assert undeclared.value.data == {
        "requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    }
    with pytest.raises(RpcError) as not_a_list:
        stdio.request("subscriptions/listen", {"notifications": {"taskIds": "x"}})
    assert not_a_list.value.code == -32602
    with pytest.raises(RpcError) as too_many:
        ids = [f"task-{index}" for index in range(MAX_TASK_IDS + 1)]
        stdio.request("subscriptions/listen", {"notifications": {"taskIds": ids}})
    assert too_many.value.code == -32602 and str(MAX_TASK_IDS) in str(too_many.value)


def test_a_client_has_a_bounded_number_of_task_streams(stdio: StdioWire) -> None:
    """Past its share a client's new stream is let in and its oldest ends (stream_slots.py)."""
    streams = [
        stdio.send("subscriptions/listen", {"notifications": {"taskIds": []}}) for _ in range(PER_CLIENT + 1)
    ]
    for stream in streams:
        stdio.receive(_of(stream), "an acknowledgement")
    ended = stdio.receive(lambda message: message.get("id") == streams[0], "the oldest stream's end")
    assert ended["result"]["_meta"][SUBSCRIPTION] == streams[0]


def test_plain_listen_streams_share_the_same_slots(stdio: StdioWire) -> None:
    """The SDK's own streams (no taskIds) are counted with the task streams."""
    plain = {"notifications": {"toolsListChanged": True}}
    streams = [stdio.send("subscriptions/listen", plain) for _ in range(PER_CLIENT)]
    for stream in streams:
        stdio.receive(_of(stream), "an acknowledgement")
    newest = stdio.send("subscriptions/listen", {"notifications": {"taskIds": []}})
    stdio.receive(_of(newest), "an acknowledgement")
    ended = stdio.receive(lambda message: message.get("id") == streams[0], "the oldest stream's end")
    assert ended["result"]["_meta"][SUBSCRIPTION] == streams[0]


def test_over_http_a_stream_tells_the_result_and_another_client_learns_nothing(
    project: Path, tools_dir: Path, tmp_path: Path
) -> None:
    state = tmp_path / "xdg" / "toolkiln"  # the HTTP server's state folder, and a stdio server's
    state.mkdir(parents=True)
    with http_server(project, state) as server:
        call = functools.partial(http_request, server.mcp_url, server.token)
        task_id = call("tools/call", {"name": "wait", "arguments": {}})["taskId"]
        # Another principal (a stdio server of the same store) names the task: the
        # acknowledgement is the one of an id that never was, and nothing follows.
        other = StdioWire(project, tmp_path / "xdg", tmp_path / "stdio.log")
        try:
            stranger = _of(other.send("subscriptions/listen", {"notifications": {"taskIds": [task_id]}}))
            nobody = _of(other.send("subscriptions/listen", {"notifications": {"taskIds": ["never-was"]}}))
            assert other.receive(stranger)["params"]["notifications"] == {"taskIds": []}
            assert other.receive(nobody)["params"]["notifications"] == {"taskIds": []}
            with http_listen(server.mcp_url, server.token, {"taskIds": [task_id]}) as stream:
                ack = next(stream)
                assert ack["params"]["notifications"] == {"taskIds": [task_id]}
                assert _task(next(stream))["status"] == "working"
                (tools_dir / "go").write_text("")
                told = _task(next(stream))
                assert told["status"] == "completed" and told["result"]["content"][0]["text"] == "done"
                assert told == _as_polled(call("tasks/get", {"taskId": task_id}))
            other.request("tools/list", {})  # anything the stranger's streams had, came before
            assert not [message for message in other.inbox if stranger(message) or nobody(message)]
        finally:
            other.close()
        refused = http_listen(server.mcp_url, server.token, {"taskIds": [task_id]}, capabilities={})
        with pytest.raises(RpcError) as undeclared, refused as stream:
            next(stream)
        assert undeclared.value.code == -32021


def test_a_task_whose_server_died_is_told_failed_to_a_stream_on_the_next(
    project: Path, tools_dir: Path, tmp_path: Path
) -> None:
    home, log = tmp_path / "home", tmp_path / "server.log"
    first = StdioWire(project, home, log)
    task_id = first.request("tools/call", {"name": "wait", "arguments": {}})["taskId"]
    script, _ = read_pids(tools_dir)
    first.process.send_signal(signal.SIGTERM)
    first.process.wait(timeout=30)
    first.close()
    wait_gone(script)
    second = StdioWire(project, home, log)
    try:
        of_stream = _of(second.send("subscriptions/listen", {"notifications": {"taskIds": [task_id]}}))
        assert second.receive(of_stream)["params"]["notifications"] == {"taskIds": [task_id]}
        told = _task(second.receive(of_stream))
        assert told["status"] == "failed" and "stopped" in told["error"]["message"]
        assert told == _as_polled(wait_for(second.request, task_id, "failed"))
    finally:
        second.close()


def test_a_task_run_by_another_server_of_the_store_is_told_from_the_store(
    project: Path, tools_dir: Path, tmp_path: Path
) -> None:
    # Two stdio servers of one state folder: the same principal, one store (as replicas
    # share Redis). The task runs on the first; the second, listening, reads the store.
    home = tmp_path / "home"
    runner = StdioWire(project, home, tmp_path / "runner.log")
    listener = StdioWire(project, home, tmp_path / "listener.log")
    try:
        task_id = runner.request("tools/call", {"name": "wait", "arguments": {}})["taskId"]
        of_stream = _of(listener.send("subscriptions/listen", {"notifications": {"taskIds": [task_id]}}))
        assert listener.receive(of_stream)["params"]["notifications"] == {"taskIds": [task_id]}
        assert _task(listener.receive(of_stream))["status"] == "working"
        (tools_dir / "go").write_text("")
        told = _task(listener.receive(of_stream, "the result, read from the store"))
        assert told["status"] == "completed" and told["result"]["content"][0]["text"] == "done"
    finally:
        runner.close()
        listener.close()


def test_answers_sent_to_a_server_not_running_the_task_are_refused_not_lost(
    asking: Path, tmp_path: Path
) -> None:
    """Two servers of one store (as replicas of one Redis): the task's questions can be
    answered only where its script waits; elsewhere the answer is an error, never dropped."""
    home = tmp_path / "home"
    runner = StdioWire(asking, home, tmp_path / "runner.log")
    other = StdioWire(asking, home, tmp_path / "other.log")
    try:
        task_id = runner.request("tools/call", {"name": "ask", "arguments": {}})["taskId"]
        [key] = wait_for(other.request, task_id, "input_required")["inputRequests"]
        answer = {
            "taskId": task_id,
            "inputResponses": {key: {"action": "accept", "content": {"name": "Ada"}}},
        }
        with pytest.raises(RpcError, match="runs in another server process"):
            other.request("tasks/update", answer)
        runner.request("tasks/update", answer)
        done = wait_for(runner.request, task_id, "completed")
        assert done["result"]["content"][0]["text"] == "hello Ada"
    finally:
        runner.close()
        other.close()
