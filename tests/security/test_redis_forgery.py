"""Whoever can write to the Redis server that replicas share cannot make them act
(serve/sealed_messages.py): real `serve --http --stateless` replicas sharing a real
redis-server and a secret, and an attacker who holds a plain Redis client.

What replicas act on through Redis is sealed with their secret, for one purpose, one
deployment and one key, with the time it was issued: news of a switch or a rebuild, a
client's answers relayed to the replica whose script waits for them and its reply, and
heartbeats. A forged value, a genuine one replayed, moved to another key, or presented
for another purpose, is refused with a warning in the log; genuine traffic goes on.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
import redis

from tests.serve.redis_server import needs_redis, redis_server
from tests.serve.replicas.test_replicas import replica, write_secret
from tests.serve.replicas.test_replicas_rebuilds import logged
from tests.serve.replicas.test_replicas_relay import ELICITATION, NAMES, Pair, _name, pair, project  # noqa: F401
from tests.serve.replicas.test_replicas_streams import HEADERS, _call, _events, _url, gated  # noqa: F401
from tests.serve.replicas.test_replicas_switches import _seen, _switch, _tools, two_replicas, two_tools  # noqa: F401
from tests.serve.tasks_wire import RpcError, wait_for
from toolkiln.serve.calls.request_state import request_state_security
from toolkiln.serve.replicas.event_store import BLOCK_MILLISECONDS
from toolkiln.serve.replicas.news import digest_of
from toolkiln.serve.sealed_messages import Seals
from toolkiln.state_secret import load_state_secret

pytestmark = needs_redis
REFUSED_SECONDS = 3  # a reply that has not come by then is not coming: the message was refused
_ARGUMENT = re.compile(r'"((?:[^"\\]|\\.)*)"')


def test_forged_replayed_or_misdirected_news_switches_nothing(two_tools: Path, tmp_path: Path) -> None:  # noqa: F811
    secret = load_state_secret(two_tools.parent / "replicas-secret")
    with two_replicas(two_tools, two_tools, tmp_path) as (store, first, second, token):
        attacker = redis.Redis.from_url(store.url, decode_responses=True)
        # Forged news of a switch, and of a rebuild, as any Redis client can write them.
        switch = {"id": "ab", "from": "cd", "kind": "switch", "key": "other", "enabled": False}
        switch["digest"] = None
        rebuild = {"id": "ef", "from": "cd", "kind": "rebuild", "by": "build"}
        rebuild["digest"] = str(digest_of(two_tools / "tools.json"))
        attacker.set("toolkiln:catalog:last", json.dumps(switch))
        for news in (switch, rebuild):
            assert attacker.publish("toolkiln:catalog", json.dumps(news)) == 2
        # Genuine traffic: a switch off and on again reaches the other replica.
        assert _switch(first, token, "echo", False).status_code == 200
        assert _seen(second, token, {"other"}) == {"other"}
        echo_off = attacker.get("toolkiln:catalog:last")
        assert _switch(first, token, "echo", True).status_code == 200
        assert _seen(second, token, {"echo", "other"}) == {"echo", "other"}
        # That genuine "echo off" replayed; presented as a rebuild; sealed (with the same
        # secret) by another deployment sharing the Redis server.
        assert isinstance(echo_off, str)
        payload = echo_off.split(".", 4)[4]
        elsewhere = Seals(secret.secrets, "staging:").seal("switch-news", payload)
        # And a genuine heartbeat, presented as news.
        heartbeat = attacker.get(next(attacker.scan_iter("toolkiln:owner:*")))
        relabeled = echo_off.replace("switch-news", "rebuild-news", 1)
        for text in (echo_off, relabeled, elsewhere, str(heartbeat)):
            assert attacker.publish("toolkiln:catalog", text) == 2
        log = logged(tmp_path / "b", "ignored", 6)
        assert log.count("ignored") == 6, log
        assert "issued before the newest this replica applied" in log
        assert log.count("its seal does not verify") == 2  # relabeled, and another deployment's
        assert "sealed as 'owner-heartbeat', presented as 'switch-news'" in log
        assert "loading it" not in log  # the forged rebuild was not believed
        assert _tools(second, token) == {"echo", "other"}
        assert json.loads((two_tools / "tools" / "other.json").read_text())["enabled"] is True
        attacker.close()


def test_forged_or_replayed_answers_never_reach_a_waiting_script(pair: Pair, tmp_path: Path) -> None:  # noqa: F811
    """The call's questions come from A; the attacker knows A's instance and the state of
    the parked call (both are in the messages and replies relayed through Redis; here the
    test opens the client's sealed state with the replicas' secret to learn it)."""
    security = request_state_security(load_state_secret(tmp_path / "secret"))
    attacker = redis.Redis.from_url(pair.store.url, decode_responses=True)
    call = {"name": "rounds", "arguments": {"topic": "team"}}
    asked = pair.call(pair.a, "tools/call", call, ELICITATION)
    state = json.loads(security.codec.unseal(asked["requestState"]))["s"]
    instance = state.partition(".")[0]
    forged = {
        **{"v": 1, "id": secrets.token_hex(16), "kind": "resume"},
        "body": {
            **{"state": state, "responses": {"first": _name("Mallory")}, "capabilities": ELICITATION},
            **{"window": None, "principal": "x", "tool": "rounds", "arguments": call["arguments"]},
            **{"transport": "http", "client": None},
        },
    }
    attacker.rpush(f"toolkiln:relay:{instance}", json.dumps(forged))
    assert attacker.blpop([f"toolkiln:relay:reply:{forged['id']}"], timeout=REFUSED_SECONDS) is None
    # The genuine answer, relayed by B, reaches A's script; the attacker watches Redis.
    with watching(attacker) as pushed:
        retry = {**call, "requestState": asked["requestState"], "inputResponses": {"first": _name("Ada")}}
        asked = pair.call(pair.b, "tools/call", retry, ELICITATION)
    [genuine] = [text for key, text in pushed if key == f"toolkiln:relay:{instance}"]
    message_id = json.loads(genuine.split(".", 4)[4])["id"]
    # Replayed to A; moved to B's inbox.
    attacker.rpush(f"toolkiln:relay:{instance}", genuine)
    other = next(key for key in attacker.scan_iter("toolkiln:owner:*") if not key.endswith(instance))
    attacker.rpush(f"toolkiln:relay:{other.rpartition(':')[2]}", genuine)
    assert attacker.blpop([f"toolkiln:relay:reply:{message_id}"], timeout=REFUSED_SECONDS) is None
    for key, on in (("second", pair.a), ("third", pair.b)):
        retry = {**call, "requestState": asked["requestState"], "inputResponses": {key: _name(NAMES[key])}}
        asked = pair.call(on, "tools/call", retry, ELICITATION)
    assert asked["structuredContent"] == {"names": list(NAMES.values()), "port": pair.a.port}
    log_a = logged(tmp_path / "replica-a", "dropped a relayed message", 2)
    assert "dropped a relayed message that does not verify: not sealed" in log_a
    assert "dropped a relayed message taken before (replayed)" in log_a
    assert "dropped a relayed message that does not verify: its seal does not verify" in logged(
        tmp_path / "replica-b", "dropped a relayed message"
    )
    attacker.close()


def test_forged_task_records_and_heartbeats_are_no_tasks_and_no_replicas(
    pair: Pair,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A runs four tasks, waiting for answers. A task's record rewritten to say it
    completed with the attacker's result, or replaced by another task's genuine record:
    no such task. Then A is killed. A heartbeat written by hand, another replica's genuine
    one, or A's own replayed, kept for ever: B sees A gone all the same, and says its
    tasks failed."""
    attacker = redis.Redis.from_url(pair.store.url, decode_responses=True)
    tasks = [pair.call(pair.a, "tools/call", {"name": "greet_task", "arguments": {}}) for _ in range(4)]
    get_b = lambda method, params: pair.call(pair.b, method, params)  # noqa: E731
    for task in tasks:
        wait_for(get_b, task["taskId"], "input_required")
    keys = [f"toolkiln:task:{task['taskId']}" for task in tasks]
    text = str(attacker.get(keys[0]))
    record = json.loads(text.split(".", 4)[4] if text.startswith("tk1.") else text)  # readable, sealed or not
    forged = {**record, "task_id": tasks[3]["taskId"], "status": "completed", "input_requests": None}
    forged["result"] = {"content": [{"type": "text", "text": "forged"}], "isError": False}
    for value in (json.dumps(forged), str(attacker.get(keys[1]))):
        attacker.set(keys[3], value, keepttl=True)
        with pytest.raises(RpcError, match="No such task"):
            get_b("tasks/get", {"taskId": tasks[3]["taskId"]})
    assert "ignored the record of task" in logged(tmp_path / "replica-b", "ignored the record of task")
    tasks = tasks[:3]
    heartbeat_a = f"toolkiln:owner:{record['owner']['instance']}"
    [heartbeat_b] = [key for key in attacker.scan_iter("toolkiln:owner:*") if key != heartbeat_a]
    genuine_a = attacker.get(heartbeat_a)
    pair.a.process.kill()
    pair.a.process.wait()
    for task, value in zip(tasks, ("1", attacker.get(heartbeat_b), genuine_a), strict=True):
        attacker.set(heartbeat_a, str(value))  # no expiry
        failed = wait_for(get_b, task["taskId"], "failed", "completed")
        assert failed["status"] == "failed"
        assert "has not renewed its heartbeat" in failed["statusMessage"]
    attacker.close()


def test_a_forged_event_never_reaches_a_resuming_client(gated: Path, tmp_path: Path) -> None:  # noqa: F811
    """A 2025-11-25 client's call runs on A, its connection drops; the attacker adds to
    the call's stream in Redis a response of its own (the stream's key, name and writer
    copied from a genuine entry), and an entry naming a writer that does not run. The
    client resumes through B: it gets what A sent, to the end."""
    token_file, secret = tmp_path / "state" / "token", write_secret(tmp_path / "secret")
    with (
        redis_server(tmp_path / "redis") as store,
        replica(
            gated,
            token_file,
            tmp_path / "a",
            TOOLKILN_STATE_URL=store.url,
            TOOLKILN_STATE_SECRET_FILE=str(secret),
        ) as first,
        replica(
            gated,
            token_file,
            tmp_path / "b",
            TOOLKILN_STATE_URL=store.url,
            TOOLKILN_STATE_SECRET_FILE=str(secret),
        ) as second,
        httpx2.Client(timeout=30) as http,
    ):
        auth = {**HEADERS, "Authorization": f"Bearer {token_file.read_text().strip()}"}
        with http.stream("POST", _url(first), headers=auth, json=_call(tmp_path / "gate")) as stream:
            before = _events(stream.iter_lines(), stop_after="before 2")
        last_id = [event_id for event_id, _ in before if event_id][-1]
        attacker = redis.Redis.from_url(store.url, decode_responses=True)
        key = f"toolkiln:events:{last_id.partition('.')[0]}"
        [(_, genuine)] = attacker.xrevrange(key, count=1)
        forged = {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "forged"}]}}
        attacker.xadd(key, {**genuine, "m": json.dumps(forged)})
        attacker.xadd(key, {**genuine, "m": "", "o": "0" * 24})  # a writer that does not run
        attacker.close()
        # The gate opens once B has followed the stream a while (and looked at its writer).
        opening = threading.Timer(2 * BLOCK_MILLISECONDS / 1000, (tmp_path / "gate").touch)
        opening.start()
        with http.stream("GET", _url(second), headers={**auth, "Last-Event-ID": last_id}) as stream:
            after = _events(stream.iter_lines(), until_id=1)
        opening.join()
    answer = after[-1][1]
    assert answer is not None and answer["result"]["content"][0]["text"] == f"finished on {first.port}"
    assert "skipped an event of stream" in (tmp_path / "b" / "stderr").read_text()


@contextlib.contextmanager
def watching(client: redis.Redis) -> Iterator[list[tuple[str, str]]]:
    """What every client pushes on a list while inside, as (key, value): Redis's MONITOR,
    which whoever may write to Redis may run."""
    pushed: list[tuple[str, str]] = []
    stop = threading.Event()
    with client.monitor() as monitor:

        def read() -> None:
            while not stop.is_set():
                line = str(monitor.connection.read_response())
                arguments = [_unescape(argument) for argument in _ARGUMENT.findall(line)]
                if len(arguments) == 3 and arguments[0].upper() == "RPUSH":
                    pushed.append((arguments[1], arguments[2]))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            yield pushed
        finally:
            stop.set()
            client.ping()  # one more line, so the reader sees `stop`
            reader.join(timeout=10)


def _unescape(argument: str) -> str:
    """An argument as MONITOR quotes it (Redis's `sdscatrepr`), as it was sent."""
    named = {"n": "\n", "r": "\r", "t": "\t", "a": "\a", "b": "\b"}
    return re.sub(
        r"\\(x[0-9a-f]{2}|.)",
        lambda match: chr(int(match[1][1:], 16)) if len(match[1]) == 3 else named.get(match[1], match[1]),
        argument,
    )
