"""What a task costs (SEP-2663): creating one and polling it to its result, against a
plain call of the same echo tool, with the embedded SQLite store and with Redis (a
real `redis-server` started here; skipped with a note when it is not installed).

Raw 2026-07-28 JSON-RPC over HTTP (the SDK's client does not speak the tasks
extension): one `toolkiln serve --http` per store, one keep-alive connection each,
the variants taking turns call by call.
"""

from __future__ import annotations

import itertools
import json
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2

from benchmarks.projects import ECHO, TOOLKILN, measured_env, toolkiln, write_script
from benchmarks.rounds import Figures, Preset, median, percentiles, rotated
from benchmarks.targets import free_port

VERSION = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
WARM_UP = 10
STARTUP_SECONDS = 30
VARIANTS = ("plain_call", "task_create", "task_get", "task_to_result")
_ids = itertools.count(1)


def measure_tasks(root: Path, preset: Preset) -> Figures:
    config = _project(root / "tasks")
    stores: dict[str, dict[str, str]] = {"sqlite": {}}
    redis = shutil.which("redis-server")
    with contextlib_redis(root / "redis", redis) as url:
        if url is not None:
            stores["redis"] = {"TOOLKILN_STATE_URL": url}
        samples: dict[str, dict[str, list[float]]] = {s: {v: [] for v in VARIANTS} for s in stores}
        polls: dict[str, list[int]] = {store: [] for store in stores}
        rounds: dict[str, list[Figures]] = {store: [] for store in stores}
        for round_ in range(preset.rounds):
            if url is not None:  # each round starts from an empty store, as SQLite's does
                _flush(url)
            with _servers(root / f"tasks-round-{round_}", config, stores) as clients:
                for store, client in clients.items():
                    for _ in range(WARM_UP):
                        _sample(client, polls[store])
                for index in range(preset.calls):
                    for store in rotated(list(stores), index):
                        for variant, seconds in _sample(clients[store], polls[store]).items():
                            samples[store][variant].append(seconds)
            for store in stores:
                rounds[store].append({v: percentiles(samples[store][v][-preset.calls :]) for v in VARIANTS})
    figures: Figures = {}
    for store in stores:
        figures[store] = {
            variant: {
                field: median(r[variant][field] for r in rounds[store]) for field in rounds[store][0][variant]
            }
            for variant in VARIANTS
        }
        figures[store]["polls_to_result"] = median(polls[store])
        plain = figures[store]["plain_call"]["p50_ms"]
        figures[store]["create_ratio"] = round(figures[store]["task_create"]["p50_ms"] / plain, 3)
        figures[store]["to_result_ratio"] = round(figures[store]["task_to_result"]["p50_ms"] / plain, 3)
    if "redis" not in stores:
        figures["redis"] = {"skipped": "redis-server is not installed (apt-get install redis-server)"}
    return figures


def _sample(client: _Client, polls: list[int]) -> dict[str, float]:
    """One of each: a plain call, a task created, one `tasks/get` of it, and a task
    created and polled back to back until its result (the echo ends at once)."""
    times: dict[str, float] = {}
    started = time.perf_counter()
    plain = client.request("tools/call", _echo("plain"), tasks=False)
    times["plain_call"] = time.perf_counter() - started
    _check(plain.get("content", [{}])[0].get("text") == "plain", plain)
    started = time.perf_counter()
    created = client.request("tools/call", _echo("created"))
    times["task_create"] = time.perf_counter() - started
    _check(created.get("resultType") == "task", created)
    started = time.perf_counter()
    client.request("tasks/get", {"taskId": created["taskId"]})
    times["task_get"] = time.perf_counter() - started
    started = time.perf_counter()
    task = client.request("tools/call", _echo("polled"))
    count = 0
    while task.get("status") not in ("completed", "failed", "cancelled"):
        task = client.request("tasks/get", {"taskId": task["taskId"]})
        count += 1
    times["task_to_result"] = time.perf_counter() - started
    _check(task["result"]["content"][0]["text"] == "polled", task)
    polls.append(count)
    return times


def _echo(message: str) -> dict[str, Any]:
    return {"name": "echo", "arguments": {"message": message}}


def _check(ok: bool, answer: dict[str, Any]) -> None:
    if not ok:
        raise RuntimeError(f"unexpected answer: {answer}")


class _Client:
    """2026-07-28 requests to one server's `/mcp`, on one keep-alive connection."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.http = httpx2.Client(timeout=60, headers={"Authorization": f"Bearer {token}"})

    def request(self, method: str, params: dict[str, Any], *, tasks: bool = True) -> dict[str, Any]:
        capabilities = {"extensions": {TASKS: {}}} if tasks else {}
        meta = {
            "io.modelcontextprotocol/protocolVersion": VERSION,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
        }
        message = {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": {**params, "_meta": meta}}
        name = params.get("name") or params.get("taskId")
        headers = {
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": VERSION,
            "Mcp-Method": method,
            "Mcp-Name": str(name),
        }
        response = self.http.post(self.url, json=message, headers=headers)
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            lines = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
            answer = json.loads(
                next(line for line in lines if f'"id":{message["id"]}' in line.replace(" ", ""))
            )
        else:
            answer = response.json()
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        result: dict[str, Any] = answer["result"]
        return result


def _project(root: Path) -> Path:
    """The echo tool, allowed to run as a task (`task: optional`)."""
    tools, config = root / "tools", root / "config"
    write_script(tools / "echo.sh", ECHO)
    toolkiln("discover", "--tools-dir", tools, "--config-dir", config)
    path = config / "tools" / "echo.json"
    settings = json.loads(path.read_text())
    settings["script_config"]["task"] = "optional"
    path.write_text(json.dumps(settings, indent=2) + "\n")
    toolkiln("build", "--tools-dir", tools, "--config-dir", config)
    return config


@contextmanager
def _servers(root: Path, config: Path, stores: dict[str, dict[str, str]]) -> Iterator[dict[str, _Client]]:
    """One `toolkiln serve --http` per store, each with its own state folder."""
    processes: list[subprocess.Popen[bytes]] = []
    clients: dict[str, _Client] = {}
    try:
        for store, env in stores.items():
            state = root / store
            state.mkdir(parents=True, mode=0o700)
            port = free_port()
            command = [TOOLKILN, "serve", "--http", "--port", str(port), "--config-dir", str(config)]
            command += ["--token-file", str(state / "token")]
            process = subprocess.Popen(command, stderr=subprocess.DEVNULL, env={**measured_env(), **env})
            processes.append(process)
            _wait_for(state / "server.json", process)
            clients[store] = _Client(f"http://127.0.0.1:{port}/mcp", (state / "token").read_text().strip())
        yield clients
    finally:
        for client in clients.values():
            client.http.close()
        for process in processes:
            process.terminate()
            process.wait()


def _wait_for(path: Path, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while not path.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the server did not start (exit {process.poll()})")
        time.sleep(0.01)


@contextmanager
def contextlib_redis(folder: Path, program: str | None) -> Iterator[str | None]:
    """A `redis-server` on a free loopback port, nothing saved; None without one."""
    if program is None:
        yield None
        return
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    command = [program, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder)]
    command += ["--save", "", "--appendonly", "no"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _accepts(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.02)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait()


def _flush(url: str) -> None:
    """Empty the Redis server (the store keeps at most 1,000 tasks; a round makes 420)."""
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(b"FLUSHALL\r\n")
        if not connection.recv(64).startswith(b"+OK"):
            raise RuntimeError("redis-server did not empty")


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(64).startswith(b"+PONG")
    except OSError:
        return False
