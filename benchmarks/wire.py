"""Raw 2026-07-28 JSON-RPC to a `toolkiln serve --http`, for the benchmarks whose client
the SDK's does not fit (the tasks extension; a retry sent to another replica)."""

from __future__ import annotations

import itertools
import json
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx2

VERSION = "2026-07-28"
STARTUP_SECONDS = 30
_ids = itertools.count(1)


class RpcClient:
    """2026-07-28 requests to one server's `/mcp`, on one keep-alive connection."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.http = httpx2.Client(timeout=60, headers={"Authorization": f"Bearer {token}"})

    def request(
        self, method: str, params: dict[str, Any], capabilities: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The request's result (from its JSON answer or its SSE stream); an error answer
        raises RuntimeError."""
        meta = {
            "io.modelcontextprotocol/protocolVersion": VERSION,
            "io.modelcontextprotocol/clientCapabilities": capabilities or {},
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

    def close(self) -> None:
        self.http.close()


def wait_for_file(path: Path, process: subprocess.Popen[bytes]) -> None:
    """Until the server wrote `path` (its discovery file: it listens)."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while not path.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the server did not start (exit {process.poll()})")
        time.sleep(0.01)
