"""`tools/call` latency without the SDK's client: JSON-RPC written to each server (lines
on stdin, or POSTs to `/mcp` over one kept-alive HTTP connection) and its answer read
back, so the figures are the servers' alone (the client's parsing and validation left
out). Not part of `make bench`:

    .venv/bin/python -m benchmarks.raw_calls [CALLS] [--http]

The reference, toolkiln, and toolkiln with `--no-audit` take turns call by call; each
figure is the median of CALLS calls after 20 warm-up calls. Also printed: each server's
own CPU time per call (user + system, its tools' left out), from /proc.
"""

from __future__ import annotations

import http.client
import json
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Protocol

from benchmarks.projects import TOOLKILN, measured_env, served_project
from benchmarks.rounds import rotated
from benchmarks.targets import REFERENCE, cpu_seconds, free_port

PROTOCOL_VERSION = "2025-11-25"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
WARM_UP = 20


class Server(Protocol):
    pid: int

    def call(self, request_id: int) -> float:
        """Seconds from sending one `tools/call` of echo to its answer (checked)."""
        ...

    def close(self) -> None: ...


def main() -> None:
    calls = int(next((arg for arg in sys.argv[1:] if arg.isdigit()), "1000"))
    over_http = "--http" in sys.argv
    with tempfile.TemporaryDirectory(prefix="toolkiln-raw-") as scratch:
        config = served_project(Path(scratch), 10)
        echo = config.parent / "tools" / "echo.sh"
        token_file = Path(scratch) / "token"
        token_file.write_text(secrets.token_urlsafe(32))
        toolkiln = [TOOLKILN, "serve", "--config-dir", str(config)]
        if over_http:
            toolkiln += ["--http", "--token-file", str(token_file)]
        commands = {
            "reference": [sys.executable, str(REFERENCE), str(echo)],
            "toolkiln": toolkiln,
            "toolkiln --no-audit": [*toolkiln, "--no-audit"],
        }
        if over_http:
            token = token_file.read_text()
            servers: dict[str, Server] = {
                name: _HttpServer(argv, None if name == "reference" else token)
                for name, argv in commands.items()
            }
        else:
            servers = {name: _StdioServer(argv) for name, argv in commands.items()}
        latencies, cpu = measure(servers, calls)
    reference = statistics.median(latencies["reference"])
    for name, seconds in latencies.items():
        p50 = statistics.median(seconds)
        print(
            f"{name:<20} p50 {p50 * 1000:.2f} ms  {p50 / reference:.2f}x the reference"
            f"  (server CPU {cpu[name] / calls * 1000:.2f} ms a call)"
        )


def measure(servers: dict[str, Server], calls: int) -> tuple[dict[str, list[float]], dict[str, float]]:
    """The latencies of each server's calls, and its CPU seconds over the measured ones."""
    latencies: dict[str, list[float]] = {name: [] for name in servers}
    cpu: dict[str, float] = {}
    try:
        for number in range(WARM_UP + calls):
            if number == WARM_UP:
                cpu = {name: -cpu_seconds(server.pid) for name, server in servers.items()}
            for name in rotated(list(servers), number):
                seconds = servers[name].call(number + 1)
                if number >= WARM_UP:
                    latencies[name].append(seconds)
        cpu = {name: spent + cpu_seconds(servers[name].pid) for name, spent in cpu.items()}
    finally:
        for server in servers.values():
            server.close()
    return latencies, cpu


def _request(request_id: int) -> dict[str, Any]:
    params = {"name": "echo", "arguments": {"message": f"call {request_id}"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _check(answer: bytes, request_id: int) -> None:
    if f'"text":"call {request_id}"'.encode() not in answer.replace(b'": "', b'":"'):
        raise RuntimeError(f"unexpected answer: {answer[:500]!r}")


class _StdioServer:
    def __init__(self, argv: list[str]) -> None:
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=measured_env()
        )
        self.pid = self.process.pid
        self._send(INITIALIZE, INITIALIZED)
        self._answer()  # the initialize answer

    def call(self, request_id: int) -> float:
        started = time.perf_counter()
        self._send(_request(request_id))
        answer = self._answer()
        elapsed = time.perf_counter() - started
        _check(answer, request_id)
        return elapsed

    def _send(self, *messages: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"".join(json.dumps(message).encode() + b"\n" for message in messages))
        self.process.stdin.flush()

    def _answer(self) -> bytes:
        assert self.process.stdout is not None
        return self.process.stdout.readline()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


class _HttpServer:
    """Streamable HTTP at `/mcp`: one session, one connection, each answer read whole."""

    def __init__(self, argv: list[str], token: str | None) -> None:
        port = free_port()
        self.process = subprocess.Popen(
            [*argv, "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=measured_env(),
        )
        self.pid = self.process.pid
        self.headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **({"Authorization": f"Bearer {token}"} if token else {}),
        }
        self.connection = self._connect(port)
        session = self._post(INITIALIZE)
        self.headers["Mcp-Protocol-Version"] = PROTOCOL_VERSION
        if session is not None:
            self.headers["Mcp-Session-Id"] = session
        self._post(INITIALIZED)

    def _connect(self, port: int) -> http.client.HTTPConnection:
        deadline = time.monotonic() + 60
        while True:
            connection = http.client.HTTPConnection("127.0.0.1", port)
            try:
                connection.connect()
                return connection
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise
                time.sleep(0.05)

    def _post(self, message: dict[str, Any]) -> str | None:
        """Send `message`; its answer's session id."""
        self.connection.request("POST", "/mcp", json.dumps(message), self.headers)
        response = self.connection.getresponse()
        self.answer = response.read()
        if response.status >= 300:
            raise RuntimeError(f"HTTP {response.status}: {self.answer[:500]!r}")
        return response.getheader("Mcp-Session-Id")

    def call(self, request_id: int) -> float:
        started = time.perf_counter()
        self._post(_request(request_id))
        elapsed = time.perf_counter() - started
        _check(self.answer, request_id)
        return elapsed

    def close(self) -> None:
        self.connection.close()
        self.process.terminate()
        self.process.wait()


if __name__ == "__main__":
    main()
