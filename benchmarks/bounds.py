"""What a real HTTP server holds under two floods (issue 30, findings 2 and 3). Not part of
`make bench`; run by hand, against this checkout or another (its `server/` folder):

    .venv/bin/python -m benchmarks.bounds sessions [--repo PATH] [--sessions 16] [--calls 48]
    .venv/bin/python -m benchmarks.bounds denials [--repo PATH] [--denials 16000]

`sessions`: the server's RSS (VmRSS) before and after N stateful sessions each make M
calls of a tool printing 250 KiB, and what `/health` with the token says the sessions
keep. `denials`: 50 calls, then unauthenticated requests with a 3,000-character path
(half with such a Host); how many calls the audit log still holds, and its files' sizes.
Figures only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2

BIG = "#!/bin/bash\n# Tool: big\n# Description: Print 250 KiB\nhead -c 256000 /dev/zero | tr '\\0' 'x'\n"
ECHO = (
    "#!/bin/bash\n# Tool: echo\n# Description: Echo\n"
    '# @param message: What (type: string, required: true)\necho "$message"\n'
)
HELLO = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}


@contextmanager
def served(
    repo: Path, tool: str, body: str, *options: str
) -> Iterator[tuple[subprocess.Popen[bytes], str, str, Path]]:
    """A real `serve --http` of one tool, from `repo`'s code: the process, its URL, its
    token, and its folder (the audit log's files are `audit*` there)."""
    work = Path(tempfile.mkdtemp(prefix="toolkiln-bounds-"))
    tools, config, state = work / "tools", work / "config", work / "state"
    tools.mkdir()
    script = tools / f"{tool}.sh"
    script.write_text(body)
    script.chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(repo / "server")}
    for step in ("discover", "build"):
        command = [
            sys.executable,
            "-m",
            "toolkiln",
            step,
            "--tools-dir",
            str(tools),
            "--config-dir",
            str(config),
        ]
        subprocess.run(command, env=env, check=True, capture_output=True)
    command = [
        sys.executable, "-m", "toolkiln", "serve", "--http", "--port", "0", "--config-dir", str(config),
        "--token-file", str(state / "token"), "--audit-log", str(work / "audit.jsonl"), *options,
    ]  # fmt: skip
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not (state / "server.json").exists():
            time.sleep(0.1)
        url = json.loads((state / "server.json").read_text())["url"]
        yield process, url, (state / "token").read_text().strip(), work
    finally:
        process.terminate()
        process.wait()
        if "--no-audit" in options:  # nothing to read afterwards
            shutil.rmtree(work)


def rss_mb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return int(next(line for line in status if line.startswith("VmRSS")).split()[1]) // 1024


def measure_sessions(repo: Path, sessions: int, calls: int) -> dict[str, Any]:
    with (
        served(repo, "big", BIG, "--no-audit") as (process, url, token, _),
        httpx2.Client(timeout=120) as http,
    ):
        auth = {"Authorization": f"Bearer {token}"}
        time.sleep(1)
        before = rss_mb(process.pid)
        opened = []
        for _ in range(sessions):
            headers = {
                **auth,
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-11-25",
            }
            answer = http.post(
                url,
                headers=headers,
                json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": HELLO},
            )
            headers["mcp-session-id"] = answer.headers["mcp-session-id"]
            http.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
            opened.append(headers)
        for number in range(1, calls + 1):
            for headers in opened:
                call = {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": {"name": "big"}}
                http.post(url, headers=headers, json=call).raise_for_status()
        health = http.get(url.removesuffix("/mcp") + "/health", headers=auth).json()
        return {
            "sessions": sessions,
            "calls_each": calls,
            "rss_before_mb": before,
            "rss_after_mb": rss_mb(process.pid),
            "kept": health.get("sessions"),
        }


def measure_denials(repo: Path, denials: int) -> dict[str, Any]:
    with served(repo, "echo", ECHO) as (_, url, token, work), httpx2.Client(timeout=30) as http:
        base = url.removesuffix("/mcp")
        for index in range(50):
            call = {"name": "echo", "arguments": {"message": f"call {index}"}}
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}
            http.post(f"{base}/rpc", headers={"Authorization": f"Bearer {token}"}, json=body)
        long = "a" * 3000
        started = time.monotonic()
        for index in range(denials):
            http.get(f"{base}/{long}", headers={"Host": long} if index % 2 else {})
        seconds = time.monotonic() - started
    files = sorted(work.glob("audit*"))
    calls = sum(file.read_text().count('"event": "tools/call"') for file in files)
    sizes = {file.name: file.stat().st_size for file in files}
    shutil.rmtree(work)
    return {
        "denials": denials,
        "seconds": round(seconds, 1),
        "calls_left_of_50": calls,
        "files": sizes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bounds")
    parser.add_argument("what", choices=("sessions", "denials"))
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--calls", type=int, default=48)
    parser.add_argument("--denials", type=int, default=16000)
    options = parser.parse_args()
    if options.what == "sessions":
        figures = measure_sessions(options.repo, options.sessions, options.calls)
    else:
        figures = measure_denials(options.repo, options.denials)
    print(json.dumps({"repo": str(options.repo), **figures}, indent=2))


if __name__ == "__main__":
    main()
