"""What the fault tests share.

- A served catalog driven from plain tests: `serve_stdio` and `serve_http` start a real
  `toolkiln serve` with the SDK's real client on it, in an event loop of its own thread
  (an anyio blocking portal), so one server can outlive many tests and each fault shows
  that the server goes on answering.
- The processes a server and its tools leave behind: every process started by a test's
  server carries `TOOLKILN_FAULTS_MARK=<mark>` in its environment (tools inherit the
  server's), so a scan of /proc finds them all, grandchildren and daemons included.
- The server's memory, from /proc/<pid>/status.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, StdioServerParameters

from tests.conftest import child_env
from tests.faults.tally import LEAKED, count
from tests.serve.http_server import RunningServer, http_server, mcp_client

MARK_VAR = "TOOLKILN_FAULTS_MARK"
CALL_SECONDS = 120
WORKER_SCRIPT = "python_worker.py"


def new_mark() -> str:
    return uuid.uuid4().hex


def marked_processes(mark: str) -> dict[int, str]:
    """Live processes (zombies aside) whose environment carries the mark: pid -> command line."""
    needle = f"{MARK_VAR}={mark}".encode()
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            if needle not in environ.split(b"\0") or _state(pid) == "Z":
                continue
            found[pid] = (
                Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            )
        except OSError:  # gone meanwhile
            continue
    return found


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def leftovers(
    mark: str, *, keep: Iterable[int] = (), keep_workers: bool = True, grace: float = 5.0
) -> dict[int, str]:
    """The marked processes still running after up to `grace` seconds, but for `keep` and
    (unless told otherwise) warm Python workers, which live between calls by design.
    Killed processes die when the kernel next schedules them, so allow for that."""
    kept = set(keep)
    deadline = time.monotonic() + grace
    while True:
        left = {
            pid: command
            for pid, command in marked_processes(mark).items()
            if pid not in kept and not (keep_workers and WORKER_SCRIPT in command)
        }
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def assert_no_leftovers(mark: str, *, keep: Iterable[int] = (), keep_workers: bool = True) -> None:
    """Fail (and kill them, so later tests start clean) if marked processes remain."""
    left = leftovers(mark, keep=keep, keep_workers=keep_workers)
    if left:
        count(LEAKED, len(left))
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert left == {}, f"processes left behind: {left}"


def status_kib(pid: int, field: str) -> int:
    """A memory figure of /proc/<pid>/status in KiB: VmRSS (now) or VmHWM (peak)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def reset_peak_rss(pid: int) -> None:
    """Start VmHWM afresh from the current RSS (Linux 4.0+)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def text_of(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


@dataclass
class Served:
    """A running server and one SDK client on it, usable from synchronous code."""

    transport: str
    portal: BlockingPortal
    client: Client
    server_pid: int
    mark: str
    http: RunningServer | None = None

    def call(
        self, name: str, arguments: dict[str, Any] | None = None, *, seconds: float = CALL_SECONDS
    ) -> Any:
        async def call() -> Any:
            with anyio.fail_after(seconds):
                return await self.client.call_tool(name, arguments or {})

        return self.portal.call(call)

    def still_answers(self) -> None:
        """The server is alive and answers a call as it should."""
        result = self.call("echo", {"message": "still here"}, seconds=30)
        assert (result.is_error, text_of(result)) == (False, "still here")

    def assert_no_leftovers(self, *, keep_workers: bool = True) -> None:
        assert_no_leftovers(self.mark, keep=[self.server_pid], keep_workers=keep_workers)


@contextlib.contextmanager
def serve_stdio(config_dir: Path, mode: str = "legacy", *args: str, **env: str) -> Iterator[Served]:
    """`toolkiln serve --stdio` on `config_dir`, spawned by the SDK's stdio client."""
    mark = new_mark()
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolkiln", "serve", "--config-dir", str(config_dir), "--tools-dir", "unused", *args],
        env={**child_env(), **env, MARK_VAR: mark},
    )
    with (
        start_blocking_portal("asyncio") as portal,
        portal.wrap_async_context_manager(Client(params, mode=mode)) as client,
    ):
        [server_pid] = [pid for pid, command in marked_processes(mark).items() if "toolkiln serve" in command]
        yield Served("stdio", portal, client, server_pid, mark)
    # Closing the client closed the server's stdin: it has stopped, with all it started.
    assert_no_leftovers(mark, keep_workers=False)


@contextlib.contextmanager
def serve_http(
    config_dir: Path, state_dir: Path, mode: str = "auto", *args: str, **env: str
) -> Iterator[Served]:
    """`toolkiln serve --http` on `config_dir`, with the SDK's Streamable HTTP client on it."""
    mark = new_mark()
    state_dir.mkdir(parents=True, exist_ok=True)
    with (
        http_server(config_dir, state_dir, *args, **env, **{MARK_VAR: mark}) as running,
        start_blocking_portal("asyncio") as portal,
    ):
        with portal.wrap_async_context_manager(mcp_client(running, mode)) as client:
            yield Served("http", portal, client, running.process.pid, mark, http=running)
        running.stop()
    assert_no_leftovers(mark, keep_workers=False)
