"""Resumable streams shared by replicas (serve/replicas/event_store.py, replicas/resume.py): two
`serve --http --stateless` replicas and one Redis, addressed directly (no nginx, so
which replica gets each request is the test's choice).

A 2025-11-25 client's call starts on replica A; its connection drops mid-call; it
resumes with Last-Event-ID through replica B and gets the rest, each event exactly
once. A made-up id reads nothing; a replica killed under the call ends the resumed
stream with an error; with Redis down, calls go on and a resumption is refused clearly.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.conftest import MakeTool
from tests.serve.redis_server import RedisServer, needs_redis, redis_server
from tests.serve.replicas.test_replicas import Replica, replica
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = needs_redis
ROUNDS = 3
GATE_SECONDS = 60  # the script waits at most this long for the test to open its gate

# Logs two lines, waits until the test has dropped the connection (the gate), logs five more.
GATED = """\
#!/bin/bash
# Tool: gated
# Description: Log, wait for the gate, log more, answer
# @param gate: A file to wait for (type: string, required: true)
echo "INFO before 1" >&2
echo "INFO before 2" >&2
for _ in $(seq 1 $((GATE_SECONDS * 20))); do [ -e "$gate" ] && break; sleep 0.05; done
for n in 1 2 3 4 5; do echo "INFO after $n" >&2; done
echo "finished on $TOOLKILN_SERVER_PORT"
""".replace("GATE_SECONDS", str(GATE_SECONDS))
HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}


@pytest.fixture
def gated(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("gated.sh", GATED)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


@contextlib.contextmanager
def two_replicas(config_dir: Path, folder: Path) -> Iterator[tuple[RedisServer, Replica, Replica, str]]:
    folder.mkdir(parents=True)
    token_file = folder / "state" / "token"
    with (
        redis_server(folder / "redis") as store,
        replica(config_dir, token_file, folder / "a", TOOLKILN_STATE_URL=store.url) as first,
        replica(config_dir, token_file, folder / "b", TOOLKILN_STATE_URL=store.url) as second,
    ):
        yield store, first, second, token_file.read_text().strip()


def _call(gate: Path, number: int = 1) -> dict[str, Any]:
    params = {"name": "gated", "arguments": {"gate": str(gate)}, "_meta": {"progressToken": "p"}}
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params}


def _events(
    lines: Iterator[str], *, until_id: int | None = None, stop_after: str | None = None
) -> list[tuple[str | None, dict[str, Any] | None]]:
    """(id, message) of each SSE event read, a priming event's message None; until the
    response to `until_id`, or the first message whose JSON holds `stop_after`."""
    events: list[tuple[str | None, dict[str, Any] | None]] = []
    event_id: str | None = None
    data: str | None = None
    for line in lines:
        if line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            data = line[5:].strip()
        elif line == "" and (event_id is not None or data is not None):
            message = json.loads(data) if data else None
            events.append((event_id, message))
            event_id = data = None
            if message is not None and until_id is not None and message.get("id") == until_id:
                break
            if message is not None and stop_after is not None and stop_after in json.dumps(message):
                break
    return events


def _url(server: Replica) -> str:
    return f"http://127.0.0.1:{server.port}/mcp"


def _log_texts(events: list[tuple[str | None, dict[str, Any] | None]]) -> list[str]:
    return [
        str(message["params"]["data"])
        for _, message in events
        if message is not None and message.get("method") == "notifications/message"
    ]


def test_a_stream_started_on_one_replica_resumes_on_another(gated: Path, tmp_path: Path) -> None:
    lost = duplicated = 0
    for round_ in range(ROUNDS):
        with two_replicas(gated, tmp_path / f"round{round_}") as (_, first, second, token):
            auth = {**HEADERS, "Authorization": f"Bearer {token}"}
            gate = tmp_path / f"gate{round_}"
            with httpx2.Client(timeout=30) as http:
                with http.stream("POST", _url(first), headers=auth, json=_call(gate)) as stream:
                    before = _events(stream.iter_lines(), stop_after="before 2")
                # The connection is gone; the call goes on when the gate opens.
                gate.touch()
                last_id = [event_id for event_id, _ in before if event_id][-1]
                with http.stream("GET", _url(second), headers={**auth, "Last-Event-ID": last_id}) as stream:
                    assert stream.status_code == 200
                    after = _events(stream.iter_lines(), until_id=1)
        every = before + after
        texts = _log_texts(every)
        wanted = ["before 1", "before 2", *(f"after {n}" for n in range(1, 6))]
        lost += len(set(wanted) - set(texts))
        duplicated += len(texts) - len(set(texts))
        ids = [event_id for event_id, _ in every if event_id]
        assert len(ids) == len(set(ids)), ids
        assert texts == wanted, every
        answer = after[-1][1]
        assert answer is not None and answer["id"] == 1, after
        # Run by A (the first replica), read through B.
        assert answer["result"]["content"][0]["text"] == f"finished on {first.port}"
    print(f"\nshared streams: {ROUNDS} resumptions on another replica, {lost} lost, {duplicated} duplicated")
    assert (lost, duplicated) == (0, 0)


def test_a_made_up_or_foreign_event_id_reads_nothing(gated: Path, tmp_path: Path) -> None:
    with two_replicas(gated, tmp_path / "r") as (_, first, second, token):
        auth = {**HEADERS, "Authorization": f"Bearer {token}"}
        gate = tmp_path / "gate"
        gate.touch()
        with httpx2.Client(timeout=30) as http:
            answer = http.post(_url(first), headers=auth, json=_call(gate)).text
            real = [line[3:].strip() for line in answer.splitlines() if line.startswith("id:")]
            token_part, entry = real[-1].split(".")
            guesses = [
                f"{secrets.token_hex(16)}.{entry}",  # another stream's token, guessed
                f"{token_part[:-1]}{'0' if token_part[-1] != '0' else '1'}.{entry}",  # one digit off
                f"{token_part}.0-1",  # this stream, an entry it never had
            ]
            for guess in guesses:
                refused = http.get(_url(second), headers={**auth, "Last-Event-ID": guess})
                assert refused.status_code == 404, guess
                assert "call again" in refused.json()["error"]["message"]
                assert "finished" not in refused.text and "before" not in refused.text
            # Without the bearer token, not even a real id.
            denied = http.get(_url(second), headers={**HEADERS, "Last-Event-ID": real[-1]})
            assert denied.status_code == 401


def test_a_replica_killed_under_a_resumed_call_ends_the_stream_with_an_error(
    gated: Path, tmp_path: Path
) -> None:
    with two_replicas(gated, tmp_path / "r") as (_, first, second, token):
        auth = {**HEADERS, "Authorization": f"Bearer {token}"}
        with httpx2.Client(timeout=60) as http:
            with http.stream("POST", _url(first), headers=auth, json=_call(tmp_path / "never")) as stream:
                before = _events(stream.iter_lines(), stop_after="before 2")
            first.process.send_signal(signal.SIGKILL)
            first.process.wait()
            last_id = [event_id for event_id, _ in before if event_id][-1]
            with http.stream("GET", _url(second), headers={**auth, "Last-Event-ID": last_id}) as stream:
                after = _events(stream.iter_lines(), until_id=1)
    answer = after[-1][1]
    assert answer is not None and answer["id"] == 1
    assert "stopped before it answered" in answer["error"]["message"]
    _kill_gated_scripts(tmp_path / "never")


def test_with_redis_down_calls_go_on_and_resuming_is_refused_clearly(gated: Path, tmp_path: Path) -> None:
    with two_replicas(gated, tmp_path / "r") as (store, first, second, token):
        auth = {**HEADERS, "Authorization": f"Bearer {token}"}
        gate = tmp_path / "gate"
        gate.touch()
        with httpx2.Client(timeout=30) as http:
            kept = http.post(_url(first), headers=auth, json=_call(gate)).text
            kept_id = next(line[3:].strip() for line in kept.splitlines() if line.startswith("id:"))
            store.stop()
            answer = http.post(_url(first), headers=auth, json=_call(gate, 2)).text
            assert f"finished on {first.port}" in answer  # a call needs no shared state
            unkept = next(line[3:].strip() for line in answer.splitlines() if line.startswith("id:"))
            assert unkept.endswith(".unkept")
            refused = http.get(_url(second), headers={**auth, "Last-Event-ID": unkept})
            assert refused.status_code == 404
            assert "not kept" in refused.json()["error"]["message"]
            down = http.get(_url(second), headers={**auth, "Last-Event-ID": kept_id})
            assert down.status_code == 503
            assert "cannot be reached" in down.json()["error"]["message"]
    log = (tmp_path / "r" / "a" / "stderr").read_text()
    assert "events are not kept" in log


def _kill_gated_scripts(gate: Path) -> None:
    """The killed replica's script outlives it (a SIGKILLed server cannot stop it): the
    gate lets it finish."""
    gate.touch()
    time.sleep(0)  # nothing to wait for: the script ends on its own within a poll
