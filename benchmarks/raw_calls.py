"""`tools/call` latency over stdio without the SDK's client: JSON-RPC lines written
to each server's stdin and its answer read back, so the figures are the servers' alone
(the client's parsing and validation left out). Not part of `make bench`:

    .venv/bin/python -m benchmarks.raw_calls [CALLS]

The reference, toolkiln, and toolkiln with `--no-audit` take turns call by call; each
figure is the median of CALLS calls after 20 warm-up calls. Also printed: each server's
own CPU time per call (user + system, its tools' left out), from /proc.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.projects import TOOLKILN, measured_env, served_project
from benchmarks.rounds import rotated
from benchmarks.targets import REFERENCE

HANDSHAKE = [
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]
WARM_UP = 20


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    with tempfile.TemporaryDirectory(prefix="toolkiln-raw-") as scratch:
        config = served_project(Path(scratch), 10)
        echo = config.parent / "tools" / "echo.sh"
        toolkiln = [TOOLKILN, "serve", "--config-dir", str(config)]
        servers = {
            "reference": [sys.executable, str(REFERENCE), str(echo)],
            "toolkiln": toolkiln,
            "toolkiln --no-audit": [*toolkiln, "--no-audit"],
        }
        latencies, cpu = measure(servers, calls)
    reference = statistics.median(latencies["reference"])
    for name, seconds in latencies.items():
        p50 = statistics.median(seconds)
        print(
            f"{name:<20} p50 {p50 * 1000:.2f} ms  {p50 / reference:.2f}x the reference"
            f"  (server CPU {cpu[name] / calls * 1000:.2f} ms a call)"
        )


def measure(servers: dict[str, list[str]], calls: int) -> tuple[dict[str, list[float]], dict[str, float]]:
    """The latencies of each server's calls, and its CPU seconds over the measured ones."""
    processes = {name: _start(argv) for name, argv in servers.items()}
    latencies: dict[str, list[float]] = {name: [] for name in servers}
    cpu: dict[str, float] = {}
    try:
        for number in range(WARM_UP + calls):
            if number == WARM_UP:
                cpu = {name: -_cpu_seconds(process.pid) for name, process in processes.items()}
            for name in rotated(list(servers), number):
                seconds = _call(processes[name], number + 1)
                if number >= WARM_UP:
                    latencies[name].append(seconds)
        cpu = {name: spent + _cpu_seconds(processes[name].pid) for name, spent in cpu.items()}
    finally:
        for process in processes.values():
            assert process.stdin is not None
            process.stdin.close()
            process.wait()
    return latencies, cpu


def _cpu_seconds(pid: int) -> float:
    """User plus system time of process `pid` itself, its children's left out."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _start(argv: list[str]) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=measured_env()
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"".join(json.dumps(message).encode() + b"\n" for message in HANDSHAKE))
    process.stdin.flush()
    process.stdout.readline()  # the initialize answer
    return process


def _call(process: subprocess.Popen[bytes], request_id: int) -> float:
    assert process.stdin is not None and process.stdout is not None
    params = {"name": "echo", "arguments": {"message": f"call {request_id}"}}
    request = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})
    started = time.perf_counter()
    process.stdin.write(request.encode() + b"\n")
    process.stdin.flush()
    answer = json.loads(process.stdout.readline())
    elapsed = time.perf_counter() - started
    if answer.get("result", {}).get("content", [{}])[0].get("text") != f"call {request_id}":
        raise RuntimeError(f"unexpected answer: {answer}")
    return elapsed


if __name__ == "__main__":
    main()
