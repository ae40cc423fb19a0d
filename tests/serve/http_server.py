"""Start `toolkiln serve --http` as a real process on a free loopback port, for tests."""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import child_env
from toolkiln.audit import read_audit

STARTUP_SECONDS = 30


@dataclass
class RunningServer:
    process: subprocess.Popen[bytes]
    state_dir: Path
    audit_log: Path
    info: dict[str, Any]
    log_file: Path  # the server's stderr: a file, never a pipe that fills and blocks it

    @property
    def base_url(self) -> str:
        return str(self.info["url"]).removesuffix("/mcp")

    @property
    def mcp_url(self) -> str:
        return str(self.info["url"])

    @property
    def token(self) -> str:
        return (self.state_dir / "token").read_text().strip()

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def rpc(self, method: str, params: dict[str, Any] | None = None, **request: Any) -> httpx2.Response:
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": method,
            **({"params": params} if params is not None else {}),
        }
        headers = {**self.auth(), **request.pop("headers", {})}
        return httpx2.post(f"{self.base_url}/rpc", json=body, headers=headers, **request)

    def stop(self, signum: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signum)
        return self.process.wait(timeout=30)

    def stderr(self) -> str:
        return self.log_file.read_text(errors="replace")

    def audit_records(self) -> list[dict[str, Any]]:
        """The audit log's records, the denials' own file's with them (audit/denials.py)."""
        return read_audit(self.audit_log)


@contextmanager
def http_server(
    config_dir: Path,
    state_dir: Path,
    *args: str,
    open_files: int | None = None,
    transport: tuple[str, ...] = ("--http", "--port", "0"),
    **env: str,
) -> Iterator[RunningServer]:
    """Serve `config_dir`; the token and server.json go to `state_dir`. `open_files`: the
    server's RLIMIT_NOFILE (`ulimit -n`); `transport`: how the command line says HTTP."""
    audit_log = state_dir / "audit.jsonl"
    command = [
        sys.executable, "-m", "toolkiln", "serve", *transport, "--config-dir", str(config_dir),
        "--token-file", str(state_dir / "token"), "--audit-log", str(audit_log), *args,
    ]  # fmt: skip
    # In the temp folder, not in state_dir: the server makes that folder itself.
    with tempfile.NamedTemporaryFile(prefix="toolkiln-server-", suffix=".log", delete=False) as log:
        log_file = Path(log.name)
        process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=log,
            env={**child_env(), **env},
            preexec_fn=None if open_files is None else lambda: _limit_files(open_files),
        )
    server_file = state_dir / "server.json"
    deadline = time.monotonic() + STARTUP_SECONDS
    while not server_file.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            process.wait()
            output = log_file.read_text(errors="replace")
            log_file.unlink()
            raise AssertionError(f"the server did not start:\n{output}")
        time.sleep(0.05)
    server = RunningServer(process, state_dir, audit_log, json.loads(server_file.read_text()), log_file)
    try:
        yield server
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        log_file.unlink(missing_ok=True)


def _limit_files(count: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (count, count))


@asynccontextmanager
async def mcp_client(server: RunningServer, mode: str, **client: Any) -> Any:
    async with (
        httpx2.AsyncClient(headers=server.auth(), timeout=60) as http,
        Client(streamable_http_client(server.mcp_url, http_client=http), mode=mode, **client) as session,
    ):
        yield session
