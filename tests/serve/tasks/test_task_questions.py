"""An interactive script called as a task (SEP-2663 with SEP-2322; serve/calls/parked.py):
the questions it asks at once come as input-required rounds of the call, the task
follows once it is at work, later questions go through the task, and nobody's
unanswered questions hold a process for longer than `answer_timeout_seconds`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeTool, tune_tool
from tests.serve.tasks_wire import RpcError, StdioWire, read_pids, wait_for, wait_gone
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

# Asks at once; with `linger`, writes its pids first and stays at work after the answer.
ASK_THEN_WORK = """\
#!/usr/bin/env python3
# Tool: ask_then_work
# Description: Asks the user's name, then works and greets them
# @param linger: stay at work until stopped (type: boolean, required: false, default: false)
import json, os, pathlib, subprocess, sys, time
linger = json.loads(sys.stdin.readline()).get("linger")
if linger:
    child = subprocess.Popen(["sleep", "300"])
    pathlib.Path("pids").write_text(f"{os.getpid()} {child.pid}")
question = {"method": "elicitation/create", "params": {"message": "Your name?", "requestedSchema": {
    "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}
print("INPUT " + json.dumps({"name": question}), file=sys.stderr, flush=True)
name = json.loads(sys.stdin.readline())["name"]["content"]["name"]
print(f"PROGRESS 1/2 working for {name}", file=sys.stderr, flush=True)
if linger:
    time.sleep(300)
print("hello " + name)
"""
ASK_TWICE = """\
#!/usr/bin/env python3
# Tool: ask_twice
# Description: Asks two questions, one after the other
import json, sys
sys.stdin.readline()
answers = []
for key in ("first", "second"):
    question = {"method": "elicitation/create", "params": {"message": f"{key}?", "requestedSchema": {
        "type": "object", "properties": {"name": {"type": "string"}}}}}
    print("INPUT " + json.dumps({key: question}), file=sys.stderr, flush=True)
    answers.append(json.loads(sys.stdin.readline())[key]["content"]["name"])
print(" and ".join(answers))
"""
WORK_THEN_ASK = """\
#!/usr/bin/env python3
# Tool: work_then_ask
# Description: Gets to work, then asks whether to go on
import json, os, pathlib, subprocess, sys
sys.stdin.readline()
child = subprocess.Popen(["sleep", "300"])
pathlib.Path("pids").write_text(f"{os.getpid()} {child.pid}")
print("PROGRESS 1/2 half done", file=sys.stderr, flush=True)
question = {"method": "elicitation/create", "params": {"message": "Go on?", "requestedSchema": {
    "type": "object", "properties": {"go": {"type": "boolean"}}}}}
print("INPUT " + json.dumps({"go": question}), file=sys.stderr, flush=True)
answer = json.loads(sys.stdin.readline())["go"]
child.kill()
print("went on" if answer["content"]["go"] else "stopped")
"""
NAME = {"action": "accept", "content": {"name": "Ada"}}
NO_TASKS = {"elicitation": {}}  # a 2026-07-28 client that does not follow tasks


def _project(make_tool: MakeTool, tools_dir: Path, config_dir: Path, server: dict[str, Any]) -> Path:
    scripts = {
        "ask_then_work.py": ASK_THEN_WORK,
        "ask_twice.py": ASK_TWICE,
        "work_then_ask.py": WORK_THEN_ASK,
        # The same script without `ask_before_task`: a task at once.
        "ask_in_task.py": ASK_THEN_WORK.replace("Tool: ask_then_work", "Tool: ask_in_task"),
    }
    for name, body in scripts.items():
        make_tool(name, body)
    assert not discover_tools(tools_dir, config_dir).errors
    for name in ("ask_then_work", "ask_twice", "work_then_ask", "ask_in_task"):
        tune_tool(config_dir, name, interactive=True, task="optional", ask_before_task=name != "ask_in_task")
    (config_dir / "server.json").write_text(json.dumps(server))
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.fixture
def server_settings() -> dict[str, Any]:
    # A wide window: a question is a round unless the script reported progress first.
    return {"tasks": {"ask_window_seconds": 30}}


@pytest.fixture
def stdio(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path, server_settings: dict[str, Any]
) -> Iterator[StdioWire]:
    project = _project(make_tool, tools_dir, config_dir, server_settings)
    server = StdioWire(project, tmp_path / "home", tmp_path / "server.log")
    yield server
    server.close()


def _text(task: dict[str, Any]) -> str:
    return "\n".join(block["text"] for block in task["result"]["content"])


def test_questions_asked_at_once_are_rounds_of_the_call_and_the_task_follows_the_answers(
    stdio: StdioWire,
) -> None:
    first = stdio.request("tools/call", {"name": "ask_then_work", "arguments": {}})
    assert first["resultType"] == "input_required" and "taskId" not in first
    assert first["inputRequests"]["name"]["params"]["message"] == "Your name?"
    answered = {"name": "ask_then_work", "arguments": {}, "inputResponses": {"name": NAME}}
    created = stdio.request("tools/call", {**answered, "requestState": first["requestState"]})
    assert created["resultType"] == "task" and created["taskId"]
    assert "requestState" not in created and "inputRequests" not in created
    done = wait_for(stdio.request, created["taskId"], "completed", "failed")
    assert _text(done) == "hello Ada"
    # The progress the script reported before the task followed it is the task's too.
    assert done["_meta"]["toolkiln/progress"]["message"] == "working for Ada"


def test_a_script_that_asks_twice_at_once_gets_two_rounds_then_its_task(stdio: StdioWire) -> None:
    call = {"name": "ask_twice", "arguments": {}}
    first = stdio.request("tools/call", call)
    assert list(first["inputRequests"]) == ["first"]
    second = stdio.request(
        "tools/call",
        {**call, "inputResponses": {"first": NAME}, "requestState": first["requestState"]},
    )
    assert second["resultType"] == "input_required" and list(second["inputRequests"]) == ["second"]
    other = {"action": "accept", "content": {"name": "Grace"}}
    created = stdio.request(
        "tools/call",
        {**call, "inputResponses": {"second": other}, "requestState": second["requestState"]},
    )
    assert created["resultType"] == "task"  # it ended at once: a task that has completed
    assert _text(wait_for(stdio.request, created["taskId"], "completed")) == "Ada and Grace"


def test_a_question_asked_once_the_script_is_at_work_goes_through_the_task(stdio: StdioWire) -> None:
    created = stdio.request("tools/call", {"name": "work_then_ask", "arguments": {}})
    assert created["resultType"] == "task"  # it reported progress: no round, a task
    waiting = wait_for(stdio.request, created["taskId"], "input_required")
    [(key, question)] = waiting["inputRequests"].items()
    assert question["params"]["message"] == "Go on?"
    answer = {key: {"action": "accept", "content": {"go": True}}}
    stdio.request("tasks/update", {"taskId": created["taskId"], "inputResponses": answer})
    assert _text(wait_for(stdio.request, created["taskId"], "completed")) == "went on"


@pytest.mark.parametrize(
    ("tool", "server_settings"),
    [
        ("ask_in_task", {}),  # the default: no rounds before the task
        ("ask_then_work", {"tasks": {"ask_window_seconds": 0}}),
    ],
)
def test_without_rounds_first_every_question_goes_through_the_task(stdio: StdioWire, tool: str) -> None:
    task_id = stdio.request("tools/call", {"name": tool, "arguments": {}})["taskId"]
    waiting = wait_for(stdio.request, task_id, "input_required")
    [(key, question)] = waiting["inputRequests"].items()
    assert question["method"] == "elicitation/create" and question["params"]["message"] == "Your name?"
    ignored = stdio.request("tasks/update", {"taskId": task_id, "inputResponses": {"other": {}}})
    assert ignored["resultType"] == "complete"
    assert stdio.request("tasks/get", {"taskId": task_id})["status"] == "input_required"
    stdio.request("tasks/update", {"taskId": task_id, "inputResponses": {key: NAME}})
    assert _text(wait_for(stdio.request, task_id, "completed")) == "hello Ada"


def test_cancelling_the_task_that_followed_the_rounds_stops_the_script(
    stdio: StdioWire, tools_dir: Path
) -> None:
    call = {"name": "ask_then_work", "arguments": {"linger": True}}
    first = stdio.request("tools/call", call)
    script, child = read_pids(tools_dir)
    created = stdio.request(
        "tools/call", {**call, "inputResponses": {"name": NAME}, "requestState": first["requestState"]}
    )
    assert wait_for(stdio.request, created["taskId"], "working")["status"] == "working"
    stdio.request("tasks/cancel", {"taskId": created["taskId"]})
    assert (
        wait_for(stdio.request, created["taskId"], "cancelled", "completed", "failed")["status"]
        == "cancelled"
    )
    wait_gone(script, child)


@pytest.mark.parametrize("server_settings", [{"interactive": {"answer_timeout_seconds": 1}}])
def test_a_parked_call_nobody_answers_is_stopped_at_the_answer_timeout(
    stdio: StdioWire, tools_dir: Path
) -> None:
    call = {"name": "ask_then_work", "arguments": {"linger": True}}
    first = stdio.request("tools/call", call, capabilities=NO_TASKS)
    assert first["resultType"] == "input_required"
    wait_gone(*read_pids(tools_dir))  # long before the tool's run timeout
    late = {**call, "inputResponses": {"name": NAME}, "requestState": first["requestState"]}
    with pytest.raises(RpcError) as stopped:
        stdio.request("tools/call", late, capabilities=NO_TASKS)
    assert stopped.value.code == -32602
    assert "answer_timeout_seconds" in str(stopped.value) and "call it again" in str(stopped.value)


@pytest.mark.parametrize("server_settings", [{"interactive": {"answer_timeout_seconds": 1}}])
def test_a_task_whose_questions_nobody_answers_fails_at_the_answer_timeout(
    stdio: StdioWire, tools_dir: Path
) -> None:
    task_id = stdio.request("tools/call", {"name": "work_then_ask", "arguments": {}})["taskId"]
    script, child = read_pids(tools_dir)
    failed = wait_for(stdio.request, task_id, "failed", "completed", "cancelled")
    assert failed["status"] == "failed" and failed["error"]["code"] == -32001
    assert "No answers" in failed["error"]["message"]
    assert "answer_timeout_seconds" in failed["statusMessage"]
    wait_gone(script, child)
