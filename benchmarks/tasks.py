"""What a task costs (SEP-2663): creating one and polling it to its result, against a
plain call of the same echo tool, with the embedded SQLite store and with Redis (a
real `redis-server` started here; skipped with a note when it is not installed).

Raw 2026-07-28 JSON-RPC over HTTP (the SDK's client does not speak the tasks
extension): one `toolkiln serve --http` per store, one keep-alive connection each,
the variants taking turns call by call.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.projects import ECHO, TOOLKILN, measured_env, toolkiln, write_script
from benchmarks.redis_server import flush_redis, redis_server
from benchmarks.rounds import Figures, Preset, median, percentiles, rotated
from benchmarks.targets import free_port
from benchmarks.wire import RpcClient, wait_for_file

TASKS = "io.modelcontextprotocol/tasks"
WITH_TASKS = {"extensions": {TASKS: {}}}  # the client's capabilities
WARM_UP = 10
VARIANTS = ("plain_call", "task_create", "task_get", "task_to_result")


def measure_tasks(root: Path, preset: Preset) -> Figures:
    config = _project(root / "tasks")
    stores: dict[str, dict[str, str]] = {"sqlite": {}}
    redis = shutil.which("redis-server")
    with redis_server(root / "redis", redis) as url:
        if url is not None:
            stores["redis"] = {"TOOLKILN_STATE_URL": url}
        samples: dict[str, dict[str, list[float]]] = {s: {v: [] for v in VARIANTS} for s in stores}
        polls: dict[str, list[int]] = {store: [] for store in stores}
        rounds: dict[str, list[Figures]] = {store: [] for store in stores}
        for round_ in range(preset.rounds):
            if url is not None:  # each round starts from an empty store, as SQLite's does
                flush_redis(url)
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


def _sample(client: RpcClient, polls: list[int]) -> dict[str, float]:
    """One of each: a plain call, a task created, one `tasks/get` of it, and a task
    created and polled back to back until its result (the echo ends at once)."""
    times: dict[str, float] = {}
    started = time.perf_counter()
    plain = client.request("tools/call", _echo("plain"))
    times["plain_call"] = time.perf_counter() - started
    _check(plain.get("content", [{}])[0].get("text") == "plain", plain)
    started = time.perf_counter()
    created = client.request("tools/call", _echo("created"), WITH_TASKS)
    times["task_create"] = time.perf_counter() - started
    _check(created.get("resultType") == "task", created)
    started = time.perf_counter()
    client.request("tasks/get", {"taskId": created["taskId"]}, WITH_TASKS)
    times["task_get"] = time.perf_counter() - started
    started = time.perf_counter()
    task = client.request("tools/call", _echo("polled"), WITH_TASKS)
    count = 0
    while task.get("status") not in ("completed", "failed", "cancelled"):
        task = client.request("tasks/get", {"taskId": task["taskId"]}, WITH_TASKS)
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
def _servers(root: Path, config: Path, stores: dict[str, dict[str, str]]) -> Iterator[dict[str, RpcClient]]:
    """One `toolkiln serve --http` per store, each with its own state folder."""
    processes: list[subprocess.Popen[bytes]] = []
    clients: dict[str, RpcClient] = {}
    try:
        for store, env in stores.items():
            state = root / store
            state.mkdir(parents=True, mode=0o700)
            port = free_port()
            command = [TOOLKILN, "serve", "--http", "--port", str(port), "--config-dir", str(config)]
            command += ["--token-file", str(state / "token")]
            process = subprocess.Popen(command, stderr=subprocess.DEVNULL, env={**measured_env(), **env})
            processes.append(process)
            wait_for_file(state / "server.json", process)
            clients[store] = RpcClient(f"http://127.0.0.1:{port}/mcp", (state / "token").read_text().strip())
        yield clients
    finally:
        for client in clients.values():
            client.close()
        for process in processes:
            process.terminate()
            process.wait()
