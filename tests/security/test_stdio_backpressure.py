"""Hole 14 of issue 16: a stdio client that sends calls and never reads their answers grew
the server without bound (1,000 calls of a tool printing 250 KB: RSS 69 -> 329 MB). The
server now stops taking requests while too many are unanswered; once the client reads,
every answer arrives."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import MakeTool, child_env
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.serve.stdio.transport import MAX_UNANSWERED

CALLS = 1000
BIG = """\
#!/bin/bash
# Tool: big
# Description: Prints 250 KB
# @param n: Which call (type: integer)
echo "$n" >> "$CALLS_LOG"
printf 'call %s\\n' "$n"
head -c 250000 /dev/zero | tr '\\0' x
"""


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def count_lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def wait_until_settled(calls_log: Path, pid: int) -> float:
    """The server's RSS once tools stopped being started (the count held for 3 s), or
    once every call ran; the highest RSS seen on the way."""
    highest, last, since = 0.0, -1, time.monotonic()
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        highest = max(highest, rss_mb(pid))
        count = count_lines(calls_log)
        if count >= CALLS:
            break
        if count != last:
            last, since = count, time.monotonic()
        elif count and time.monotonic() - since > 3:
            break
        time.sleep(0.1)
    return max(highest, rss_mb(pid))


@pytest.mark.timeout(300)
def test_a_client_that_never_reads_cannot_grow_the_server_without_bound(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    make_tool("big.sh", BIG)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    calls_log = tmp_path / "calls.log"
    requests = [
        '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        *(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": n,
                    "method": "tools/call",
                    "params": {"name": "big", "arguments": {"n": n}},
                }
            )
            for n in range(1, CALLS + 1)
        ),
    ]
    with subprocess.Popen(
        [sys.executable, "-m", "toolkiln", "serve", "--config-dir", str(config_dir), "--no-audit"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**child_env(), "CALLS_LOG": str(calls_log)},
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        stdin = server.stdin

        def send() -> None:  # blocks while the server reads nothing: a thread of its own
            try:
                stdin.write(("\n".join(requests) + "\n").encode())
                stdin.flush()
            except BrokenPipeError:
                pass

        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        try:
            rss = wait_until_settled(calls_log, server.pid)
            started = count_lines(calls_log)
            # Far above a normal server (~70 MB), far below the unbounded growth (~330 MB).
            assert rss < 200, f"RSS {rss:.0f} MB with {started} calls run and none read"
            assert started <= MAX_UNANSWERED + 1  # it stopped taking requests

            answers = {}
            while len(answers) < CALLS + 1:  # now read: every answer arrives
                answer = json.loads(server.stdout.readline())
                answers[answer["id"]] = answer
        finally:
            sender.join(timeout=60)
            stdin.close()
        assert server.wait(timeout=60) == 0
    assert count_lines(calls_log) == CALLS
    for n in range(1, CALLS + 1):
        [text] = [item["text"] for item in answers[n]["result"]["content"]]
        assert text.startswith(f"call {n}\nxxxx") and not answers[n]["result"].get("isError")


WAITS = """\
#!/bin/bash
# Tool: waits
# Description: Waits for the file $GO, then says which call it was
# @param n: Which call (type: integer)
while [ ! -e "$GO" ]; do sleep 0.02; done
echo "done $n"
"""


def test_held_requests_run_when_there_is_room_and_a_cancelled_one_never_does(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    """More calls than MAX_UNANSWERED, all waiting: the rest are held, yet the client's
    cancellations are still read; a held request it cancels is never run or answered."""
    make_tool("waits.sh", WAITS)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    go = tmp_path / "go"
    total = MAX_UNANSWERED + 8

    def call(n: int) -> str:
        return json.dumps(
            {
                "jsonrpc": "2.0",
                "id": n,
                "method": "tools/call",
                "params": {"name": "waits", "arguments": {"n": n}},
            }
        )

    def cancel(n: int) -> str:
        return json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": n}})

    lines = [
        '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        *(call(n) for n in range(1, total + 1)),
        cancel(total),  # held: dropped
        cancel(5),  # taken in, waiting for a slot: the SDK cancels it
        '{"jsonrpc":"2.0","id":"sync","method":5}',  # invalid: answered by the reader, in order
    ]
    with subprocess.Popen(
        [sys.executable, "-m", "toolkiln", "serve", "--config-dir", str(config_dir), "--no-audit"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**child_env(), "GO": str(go)},
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(("\n".join(lines) + "\n").encode())
        server.stdin.flush()
        assert json.loads(server.stdout.readline())["id"] == 0
        assert json.loads(server.stdout.readline())["id"] == "sync"  # the cancellations were read
        go.touch()
        answers = {}
        while len(answers) < total - 2:
            answer = json.loads(server.stdout.readline())
            answers[answer["id"]] = answer
        server.stdin.write((call(1000) + "\n").encode())  # and new requests are taken in
        server.stdin.flush()
        last = json.loads(server.stdout.readline())
        server.stdin.close()
        rest = server.stdout.read()
        assert server.wait(timeout=60) == 0
    assert sorted(answers) == [n for n in range(1, total + 1) if n not in (5, total)]
    assert all(answers[n]["result"]["content"][0]["text"] == f"done {n}" for n in answers)
    assert last["id"] == 1000 and last["result"]["content"][0]["text"] == "done 1000"
    assert rest == b""
