"""What a relayed answer costs: a 2026-07-28 client's retry with its answers
(`inputResponses` + `requestState`) reaching the replica whose script waits for them
(local), against the same retry reaching the other replica, which relays it through
Redis and answers with the first replica's outcome (relayed; serve/replicas/mailbox.py).

Two `toolkiln serve --http --stateless` replicas sharing one `redis-server` (started
here; skipped with a note when it is not installed) and one secret file, raw JSON-RPC
on one keep-alive connection per replica, the variants taking turns call by call. The
tool is a shell script in the interactive protocol (docs/dialects.md): it asks one
question (`ELICIT`) and prints the answer it gets.
"""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.projects import TOOLKILN, measured_env, toolkiln, write_script
from benchmarks.redis_server import flush_redis, redis_server
from benchmarks.rounds import Figures, Preset, median, percentiles, rotated
from benchmarks.targets import free_port
from benchmarks.wire import RpcClient, wait_for_file

WARM_UP = 10
VARIANTS = ("local", "relayed")
STEPS = ("ask", "retry", "round_trip")
ELICITATION = {"elicitation": {}}  # the client's capabilities
ASK = """\
#!/bin/bash
# Tool: ask
# Description: Ask a name, and answer with it
schema='{"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}'
read -r arguments
printf 'ELICIT {"message": "Your name?", "requestedSchema": %s}\\n' "$schema" >&2
read -r answer
echo "$answer"
"""


def measure_relay(root: Path, preset: Preset) -> Figures:
    redis = shutil.which("redis-server")
    if redis is None:
        return {"skipped": "redis-server is not installed (apt-get install redis-server)"}
    config = _project(root / "relay")
    samples: dict[str, dict[str, list[float]]] = {v: {s: [] for s in STEPS} for v in VARIANTS}
    rounds: list[Figures] = []
    with redis_server(root / "relay-redis", redis) as url:
        assert url is not None
        for round_ in range(preset.rounds):
            flush_redis(url)  # each round starts from an empty store
            with _replicas(root / f"relay-round-{round_}", config, url) as (a, b):
                for index in range(WARM_UP):
                    for variant in VARIANTS:
                        _sample(a, b if variant == "relayed" else a, f"warm-{index}")
                for index in range(preset.calls):
                    for variant in rotated(list(VARIANTS), index):
                        retry_on = b if variant == "relayed" else a
                        for step, seconds in _sample(a, retry_on, f"name-{index}").items():
                            samples[variant][step].append(seconds)
            rounds.append(
                {v: {s: percentiles(samples[v][s][-preset.calls :]) for s in STEPS} for v in VARIANTS}
            )
    figures: Figures = {
        variant: {
            step: {
                field: median(r[variant][step][field] for r in rounds) for field in rounds[0][variant][step]
            }
            for step in STEPS
        }
        for variant in VARIANTS
    }
    local, relayed = figures["local"], figures["relayed"]
    figures["retry_ratio"] = round(relayed["retry"]["p50_ms"] / local["retry"]["p50_ms"], 3)
    figures["round_trip_ratio"] = round(relayed["round_trip"]["p50_ms"] / local["round_trip"]["p50_ms"], 3)
    figures["retry_added_ms"] = round(relayed["retry"]["p50_ms"] - local["retry"]["p50_ms"], 3)
    return figures


def _sample(first: RpcClient, retry_on: RpcClient, name: str) -> dict[str, float]:
    """One call of `ask` on `first`, which asks; its retry with the answer on `retry_on`."""
    call: dict[str, Any] = {"name": "ask", "arguments": {}}
    started = time.perf_counter()
    asked = first.request("tools/call", call, ELICITATION)
    answered = time.perf_counter()
    _check(asked.get("resultType") == "input_required", asked)
    [key] = asked["inputRequests"]
    answer = {key: {"action": "accept", "content": {"name": name}}}
    retry = {**call, "requestState": asked["requestState"], "inputResponses": answer}
    result = retry_on.request("tools/call", retry, ELICITATION)
    ended = time.perf_counter()
    _check(result.get("structuredContent", {}).get("content") == {"name": name}, result)
    return {"ask": answered - started, "retry": ended - answered, "round_trip": ended - started}


def _check(ok: bool, answer: dict[str, Any]) -> None:
    if not ok:
        raise RuntimeError(f"unexpected answer: {answer}")


def _project(root: Path) -> Path:
    """The `ask` tool, interactive."""
    tools, config = root / "tools", root / "config"
    write_script(tools / "ask.sh", ASK)
    toolkiln("discover", "--tools-dir", tools, "--config-dir", config)
    path = config / "tools" / "ask.json"
    settings = json.loads(path.read_text())
    settings["script_config"]["interactive"] = True
    path.write_text(json.dumps(settings, indent=2) + "\n")
    toolkiln("build", "--tools-dir", tools, "--config-dir", config)
    return config


@contextmanager
def _replicas(root: Path, config: Path, url: str) -> Iterator[tuple[RpcClient, RpcClient]]:
    """Replicas A and B: one config, one token, one secret, one Redis; each its own
    state folder (token copy, discovery file) and audit log."""
    root.mkdir(parents=True, mode=0o700)
    token, secret = secrets.token_urlsafe(32), root / "secret"
    secret.write_text(secrets.token_hex(32) + "\n")
    secret.chmod(0o600)
    env = {**measured_env(), "TOOLKILN_STATE_URL": url, "TOOLKILN_STATE_SECRET_FILE": str(secret)}
    processes: list[subprocess.Popen[bytes]] = []
    clients: list[RpcClient] = []
    try:
        for name in ("a", "b"):
            state = root / name
            state.mkdir(mode=0o700)
            (state / "token").write_text(token + "\n")
            (state / "token").chmod(0o600)
            port = free_port()
            command = [TOOLKILN, "serve", "--http", "--stateless", "--port", str(port)]
            command += ["--config-dir", str(config), "--token-file", str(state / "token")]
            command += ["--audit-log", str(state / "audit.jsonl")]
            process = subprocess.Popen(command, stderr=subprocess.DEVNULL, env=env)
            processes.append(process)
            wait_for_file(state / "server.json", process)
            clients.append(RpcClient(f"http://127.0.0.1:{port}/mcp", token))
        yield clients[0], clients[1]
    finally:
        for client in clients:
            client.close()
        for process in processes:
            process.terminate()
            process.wait()
