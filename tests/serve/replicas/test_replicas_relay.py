"""A client's answers that reach another replica go on to the one whose script waits
for them (serve/replicas/mailbox.py, serve/replicas/relayed_calls.py): two `serve --http --stateless` replicas
sharing one Redis server (`TOOLKILN_STATE_URL`) and one secret
(`TOOLKILN_STATE_SECRET_FILE`), with no sticky routing.

The replicas are addressed directly (not through nginx's round robin), so which one
gets each request is the test's choice: the first call goes to replica A, its retries
to replica B. Without Redis, another replica still refuses such a retry and says why
(test_replicas.py `test_a_retry_on_another_replica`, test_task_notices.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import mcp.types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import MakeTool, tune_tool
from tests.serve.redis_server import RedisServer, needs_redis, redis_server
from tests.serve.replicas.test_replicas import CALL_SECONDS, Replica, RetryElsewhere, replica, write_secret
from tests.serve.tasks_wire import RpcError, http_request, wait_for, wait_gone
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = needs_redis

# Three questions, one after the other, then the answers and the replica that asked.
ROUNDS = """\
#!/usr/bin/env python3
# Tool: rounds
# Description: Ask three names, one after the other
# @param topic: What the names are for (type: string, required: true)
import json, os, sys
sys.stdin.readline()
names = []
for key in ("first", "second", "third"):
    question = {"method": "elicitation/create", "params": {"message": f"{key} name?", "requestedSchema": {
        "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}
    print("INPUT " + json.dumps({key: question}), file=sys.stderr, flush=True)
    names.append(json.loads(sys.stdin.readline())[key]["content"]["name"])
print(json.dumps({"names": names, "port": int(os.environ["TOOLKILN_SERVER_PORT"])}))
"""
# Asks a name; once answered, says so in $MARK and works on for a long while.
SLOW = """\
#!/usr/bin/env python3
# Tool: slow
# Description: Ask a name, then work for a long while
import json, os, pathlib, sys, time
sys.stdin.readline()
question = {"method": "elicitation/create", "params": {"message": "Your name?", "requestedSchema": {
    "type": "object", "properties": {"name": {"type": "string"}}}}}
print("INPUT " + json.dumps({"name": question}), file=sys.stderr, flush=True)
sys.stdin.readline()
pathlib.Path(os.environ["MARK"], f"answered.{os.getpid()}").write_text("")
time.sleep(300)
"""
# Asks a name, then works (progress) and greets, saying where it ran: as a task.
GREET = """\
#!/usr/bin/env python3
# Tool: greet
# Description: Ask a name, then work and greet
import json, os, sys
sys.stdin.readline()
question = {"method": "elicitation/create", "params": {"message": "Your name?", "requestedSchema": {
    "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}
print("INPUT " + json.dumps({"name": question}), file=sys.stderr, flush=True)
name = json.loads(sys.stdin.readline())["name"]["content"]["name"]
print(f"PROGRESS 1/2 working for {name}", file=sys.stderr, flush=True)
print(f"hello {name} from {os.environ['TOOLKILN_SERVER_PORT']}")
"""
ELICITATION = {"elicitation": {}}  # a 2026-07-28 client that does not follow tasks
NAMES = {"first": "Ada", "second": "Grace", "third": "Edsger"}


def _name(name: str) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": name}}


@pytest.fixture
def project(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("rounds.py", ROUNDS)
    make_tool("careful_rounds.py", ROUNDS.replace("Tool: rounds", "Tool: careful_rounds"))
    make_tool("slow.py", SLOW)
    make_tool("greet.py", GREET)
    make_tool("greet_task.py", GREET.replace("Tool: greet", "Tool: greet_task"))
    assert not discover_tools(tools_dir, config_dir).errors
    tune_tool(config_dir, "rounds", interactive=True)
    tune_tool(config_dir, "careful_rounds", interactive=True, requires_confirmation=True)
    tune_tool(config_dir, "slow", interactive=True)
    # Its questions are rounds of the call, then a task follows it.
    tune_tool(config_dir, "greet", interactive=True, task="optional", ask_before_task=True)
    # A task at once: its questions are the task's (tasks/update).
    tune_tool(config_dir, "greet_task", interactive=True, task="required")
    (config_dir / "server.json").write_text(json.dumps({"tasks": {"ask_window_seconds": 30}}))
    build_catalog(config_dir, tools_dir)
    return config_dir


@dataclass
class Pair:
    a: Replica
    b: Replica
    token: str
    store: RedisServer
    mark: Path

    def call(self, on: Replica, method: str, params: dict[str, Any], capabilities: Any = None) -> Any:
        url = f"http://127.0.0.1:{on.port}/mcp"
        return http_request(url, self.token, method, params, capabilities)


@pytest.fixture
def pair(project: Path, tmp_path: Path) -> Iterator[Pair]:
    token_file, mark = tmp_path / "state" / "token", tmp_path / "mark"
    mark.mkdir()
    env = {"TOOLKILN_STATE_SECRET_FILE": str(write_secret(tmp_path / "secret")), "MARK": str(mark)}
    with (
        redis_server(tmp_path / "redis") as store,
        replica(project, token_file, tmp_path / "replica-a", TOOLKILN_STATE_URL=store.url, **env) as a,
        replica(project, token_file, tmp_path / "replica-b", TOOLKILN_STATE_URL=store.url, **env) as b,
    ):
        yield Pair(a, b, token_file.read_text().strip(), store, mark)


def test_rounds_of_questions_answered_through_the_other_replica(pair: Pair, tmp_path: Path) -> None:
    """Raw requests: the call (and its confirmation) on A; then each answer on another
    replica than the last, B, A, B: the script on A gets them all and ends there."""
    call = {"name": "careful_rounds", "arguments": {"topic": "team"}}
    asked = pair.call(pair.a, "tools/call", call, ELICITATION)
    assert asked["resultType"] == "input_required" and list(asked["inputRequests"]) == ["confirm"]
    yes = {"confirm": {"action": "accept", "content": {"confirm": True}}}
    asked = pair.call(
        pair.a,
        "tools/call",
        {**call, "requestState": asked["requestState"], "inputResponses": yes},
        ELICITATION,
    )
    # A state bound to other arguments is refused on B before anything is relayed.
    with pytest.raises(RpcError, match="Invalid or expired requestState") as rebound:
        pair.call(
            pair.b,
            "tools/call",
            {**call, "arguments": {"topic": "other"}, "requestState": asked["requestState"]},
            ELICITATION,
        )
    assert rebound.value.code == types.INVALID_PARAMS
    for key, on in zip(NAMES, (pair.b, pair.a, pair.b), strict=True):
        assert list(asked["inputRequests"]) == [key]
        retry = {**call, "requestState": asked["requestState"], "inputResponses": {key: _name(NAMES[key])}}
        asked = pair.call(on, "tools/call", retry, ELICITATION)
    assert asked["structuredContent"] == {"names": list(NAMES.values()), "port": pair.a.port}
    # B answered the client, so B's audit log has the call; it ran nowhere but on A.
    assert [r["success"] for r in pair.b.audited_calls()] == [True]
    assert "but no secret" not in (tmp_path / "replica-a" / "stderr").read_text()  # it has one


@pytest.mark.anyio
async def test_the_sdk_client_answers_through_the_other_replica(pair: Pair) -> None:
    """The SDK's client, whose every retry a load balancer sends to B: the script runs
    on A, and each round's answers reach it through B."""
    answers = iter(NAMES.values())

    async def elicit(context: Any, params: types.ElicitRequestFormParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": next(answers)})

    headers = {"Authorization": f"Bearer {pair.token}"}
    url = f"http://127.0.0.1:{pair.a.port}/mcp"
    async with (
        httpx2.AsyncClient(
            headers=headers, timeout=CALL_SECONDS, transport=RetryElsewhere(pair.b.port)
        ) as http,
        Client(
            streamable_http_client(url, http_client=http), mode="auto", elicitation_callback=elicit
        ) as client,
    ):
        result = await client.call_tool("rounds", {"topic": "team"})
    assert result.structured_content == {"names": list(NAMES.values()), "port": pair.a.port}
    assert [r["success"] for r in pair.b.audited_calls()] == [True]
    assert pair.a.audited_calls() == []  # A answered no request of the call but the first


def test_a_task_answered_through_the_other_replica(pair: Pair) -> None:
    """A task's questions answered by `tasks/update` on the replica that does not run
    it; and the rounds of a call that then goes on as a task, answered on B: A makes
    the task, B returns it, and either replica reads it."""
    task = pair.call(pair.a, "tools/call", {"name": "greet_task", "arguments": {}})
    assert task["resultType"] == "task"
    get_b = _getter(pair, pair.b)
    [key] = wait_for(get_b, task["taskId"], "input_required")["inputRequests"]
    update = {"taskId": task["taskId"], "inputResponses": {key: _name("Ada")}}
    assert pair.call(pair.b, "tasks/update", update)["resultType"] == "complete"
    done = wait_for(get_b, task["taskId"], "completed", "failed")
    assert done["result"]["content"][0]["text"] == f"hello Ada from {pair.a.port}"

    asked = pair.call(pair.a, "tools/call", {"name": "greet", "arguments": {}})
    assert asked["resultType"] == "input_required"
    retry = {"name": "greet", "arguments": {}, "requestState": asked["requestState"]}
    created = pair.call(pair.b, "tools/call", {**retry, "inputResponses": {"name": _name("Grace")}})
    assert created["resultType"] == "task", created
    done = wait_for(get_b, created["taskId"], "completed", "failed")
    assert done["result"]["content"][0]["text"] == f"hello Grace from {pair.a.port}"
    assert wait_for(_getter(pair, pair.a), created["taskId"], "completed")["taskId"] == created["taskId"]


def _getter(pair: Pair, on: Replica) -> Any:
    def get(method: str, params: dict[str, Any]) -> Any:
        return pair.call(on, method, params)

    return get


@pytest.mark.parametrize("what", ["replica", "redis"])
def test_what_stops_while_the_other_replica_waits_is_told_not_waited_for(pair: Pair, what: str) -> None:
    """B relays the answer to A and waits for A's outcome; A is SIGKILLed (or Redis
    stops) meanwhile: B answers the client with an error that says so, not a hang."""
    asked = pair.call(pair.a, "tools/call", {"name": "slow", "arguments": {}}, ELICITATION)
    retry = {"name": "slow", "arguments": {}, "requestState": asked["requestState"]}
    outcome: list[Any] = []

    def answer_on_b() -> None:
        try:
            outcome.append(
                pair.call(
                    pair.b, "tools/call", {**retry, "inputResponses": {"name": _name("Ada")}}, ELICITATION
                )
            )
        except RpcError as error:
            outcome.append(error)

    waiting = threading.Thread(target=answer_on_b)
    waiting.start()
    script = _wait_answered(pair.mark)  # A has the answer: B waits for A's outcome
    if what == "replica":
        pair.a.process.send_signal(signal.SIGKILL)
        pair.a.process.wait()
    else:
        pair.store.stop()
    waiting.join(timeout=60)
    assert not waiting.is_alive(), "B still waits"
    [error] = outcome
    assert isinstance(error, RpcError), error
    assert str(error).startswith("The client's answers were not relayed: ")
    if what == "replica":
        assert error.code == types.INVALID_PARAMS
        assert "the replica running this call has stopped" in str(error) and "call the tool again" in str(
            error
        )
        with contextlib.suppress(ProcessLookupError):  # a SIGKILLed server cannot stop its script
            os.kill(script, signal.SIGKILL)
        wait_gone(script)
    else:
        assert error.code == types.INTERNAL_ERROR
        assert f"the shared state store (Redis at redis://127.0.0.1:{pair.store.port}/0)" in str(error)


def _wait_answered(mark: Path) -> int:
    """The pid of the script that got its answer."""
    deadline = time.monotonic() + 30
    while not (found := list(mark.glob("answered.*"))):
        assert time.monotonic() < deadline, "the script never got its answer"
        time.sleep(0.05)
    return int(found[0].name.split(".")[1])
