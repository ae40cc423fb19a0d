"""Raw 2026-07-28 JSON-RPC to a real `toolkiln serve`, over stdio and over HTTP, for
the tasks extension (the SDK's client does not speak it): each request carries its
protocol version and client capabilities in `_meta`, as the spec has it."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2

from tests.conftest import child_env

VERSION = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
CAPABILITIES: dict[str, Any] = {"elicitation": {}, "extensions": {TASKS: {}}}
_ids = itertools.count(1)


class RpcError(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message"))
        self.code = error.get("code")
        self.data = error.get("data")


def envelope(method: str, params: dict[str, Any], capabilities: dict[str, Any] | None) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": CAPABILITIES if capabilities is None else capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "tasks-test", "version": "1"},
    }
    return {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": {**params, "_meta": meta}}


def _result(message: dict[str, Any]) -> dict[str, Any]:
    if "error" in message:
        raise RpcError(message["error"])
    result: dict[str, Any] = message["result"]
    return result


class StdioWire:
    """`toolkiln serve` (stdio) as a process; `request` sends one message and reads its answer."""

    def __init__(self, config_dir: Path, state_home: Path, log: Path) -> None:
        self.log = log.open("ab")
        command = [
            sys.executable,
            "-m",
            "toolkiln",
            "serve",
            "--config-dir",
            str(config_dir),
            "--tools-dir",
            "x",
        ]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env={**child_env(), "XDG_CONFIG_HOME": str(state_home)},
        )
        self.inbox: list[dict[str, Any]] = []  # messages read while waiting for another
        self._unread = b""

    def request(
        self, method: str, params: dict[str, Any], capabilities: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        message_id = self.send(method, params, capabilities)
        return _result(
            self.receive(lambda message: message.get("id") == message_id, f"an answer to {method}")
        )

    def send(self, method: str, params: dict[str, Any], capabilities: dict[str, Any] | None = None) -> int:
        """Send one request without waiting for its answer; its id."""
        message = envelope(method, params, capabilities)
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        message_id: int = message["id"]
        return message_id

    def receive(self, wanted: Any, what: str = "a message", seconds: float = 60) -> dict[str, Any]:
        """The first message `wanted(message)` accepts; the others stay in `inbox`, in order."""
        for index, message in enumerate(self.inbox):
            if wanted(message):
                return self.inbox.pop(index)
        assert self.process.stdout is not None
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            while b"\n" in self._unread:  # whole lines already read (several may come at once)
                line, self._unread = self._unread.split(b"\n", 1)
                message = json.loads(line)
                if wanted(message):
                    return message
                self.inbox.append(message)
            ready, _, _ = select.select([self.process.stdout], [], [], 0.2)
            if ready:
                chunk = os.read(self.process.stdout.fileno(), 65536)
                if not chunk:
                    raise AssertionError("the server closed stdout")
                self._unread += chunk
        raise AssertionError(f"no {what} within {seconds} s")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()
        self.log.close()


def http_request(
    url: str,
    token: str | None,
    method: str,
    params: dict[str, Any],
    capabilities: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """One request to `/mcp` with the headers a 2026-07-28 client sends (Mcp-Name: the
    tool's name, or the task's id)."""
    message = envelope(method, params, capabilities)
    name = params.get("name") or params.get("taskId")
    sent = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": method,
        **({"Mcp-Name": name} if name else {}),
        **({"Authorization": f"Bearer {token}"} if token else {}),
        **(headers or {}),
    }
    response = httpx2.post(url, json=message, headers=sent, timeout=60)
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        for line in response.text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                answer = json.loads(line[5:])
                if answer.get("id") == message["id"]:
                    return _result(answer)
        raise AssertionError(f"no answer to {method} in the stream")
    return _result(response.json())


@contextlib.contextmanager
def http_listen(
    url: str, token: str | None, notifications: dict[str, Any], capabilities: dict[str, Any] | None = None
) -> Iterator[Iterator[dict[str, Any]]]:
    """A `subscriptions/listen` stream over HTTP: its messages, as they come (an error
    answer raises `RpcError`)."""
    message = envelope("subscriptions/listen", {"notifications": notifications}, capabilities)
    sent = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": "subscriptions/listen",
        **({"Authorization": f"Bearer {token}"} if token else {}),
    }
    with httpx2.stream("POST", url, json=message, headers=sent, timeout=60) as response:

        def messages() -> Iterator[dict[str, Any]]:
            if not response.headers.get("content-type", "").startswith("text/event-stream"):
                response.read()
                yield _result(response.json())
                return
            for line in response.iter_lines():
                if line.startswith("data:") and line[5:].strip():
                    answer = json.loads(line[5:])
                    if answer.get("id") == message["id"]:
                        yield {"final": _result(answer)}
                        return
                    yield answer

        yield messages()


def wait_for(get: Any, task_id: str, *statuses: str) -> dict[str, Any]:
    """Poll `tasks/get` until the task's status is one of `statuses`."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        task: dict[str, Any] = get("tasks/get", {"taskId": task_id})
        if task["status"] in statuses:
            return task
        time.sleep(0.1)
    raise AssertionError(f"task {task_id} never reached {statuses}: {task}")


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as status:  # a zombie not yet reaped is gone too
            return status.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):  # reaped in between (open, or read: ESRCH)
        return True


def wait_gone(*pids: int) -> None:
    """Until every process of `pids` has ended (a zombie counts as ended)."""
    deadline = time.monotonic() + 30
    while not all(_gone(pid) for pid in pids):
        assert time.monotonic() < deadline, f"still running: {[pid for pid in pids if not _gone(pid)]}"
        time.sleep(0.05)


def read_pids(tools_dir: Path) -> tuple[int, int]:
    """The script's pid and its child's, from the `pids` file the script writes."""
    deadline = time.monotonic() + 30
    while not (tools_dir / "pids").exists() or not (tools_dir / "pids").read_text():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    script, child = (int(pid) for pid in (tools_dir / "pids").read_text().split())
    return script, child
