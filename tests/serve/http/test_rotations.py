"""Rotating the token and the replicas' shared secret without a restart and without
refusing a good request (serve/http/credentials.py; docs/operations.md, "Rotations").

A token file holds several tokens (one a line, `#` comments): every one is accepted.
The token and secret files are read again when they change, or on SIGHUP; a file
rewritten with nothing valid in it is refused with a warning, and what was read before
stays in force. Under load through nginx, two replicas (each with its own files, as on
two machines) go through a token rotation and a secret rotation in the documented order
with no request refused.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.serve.http_server import http_server
from tests.serve.replicas.test_replicas import (  # noqa: F401 (the fixture)
    PUBLIC_HOST,
    Replica,
    elicit,
    needs_nginx,
    nginx,
    replica,
    served,
    write_secret,
)

OLD, NEW = "old-token-" + "a" * 32, "new-token-" + "b" * 32
WORKERS = 8
LOG_SECONDS = 30


def write_tokens(path: Path, *lines: str) -> None:
    """What an operator writes: a temporary file, then renamed over the old one."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = path.with_suffix(".new")
    temporary.write_text("".join(f"{line}\n" for line in lines))
    temporary.chmod(0o600)
    temporary.replace(path)


def status(url: str, token: str, **headers: str) -> int:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    auth = {"Authorization": f"Bearer {token}", **headers}
    return httpx2.post(f"{url}/rpc", json=body, headers=auth, timeout=30).status_code


def dashboard(url: str, token: str) -> int:
    return httpx2.get(f"{url}/dashboard/tasks", headers={"Authorization": f"Bearer {token}"}).status_code


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + LOG_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"waited {LOG_SECONDS} s for {what}"
        time.sleep(0.05)


def test_every_token_in_the_file_is_accepted_and_a_change_is_read(served: Path, state: Path) -> None:  # noqa: F811
    token_file = state / "token"
    write_tokens(token_file, "# rotated on 2026-11-28: the new one first", NEW, "", OLD)
    with http_server(served, state) as running:
        url = running.base_url
        assert running.token.startswith("#")  # the file as written; clients take the first token
        assert (status(url, NEW), status(url, OLD), status(url, "#")) == (200, 200, 401)
        assert dashboard(url, OLD) == dashboard(url, NEW) == 200
        # The old token removed: refused once the change is read, without a restart, by
        # the dashboard too.
        write_tokens(token_file, NEW)
        wait_for(lambda: status(url, OLD) == 401, "the old token to be refused")
        assert status(url, NEW) == 200
        assert (dashboard(url, OLD), dashboard(url, NEW)) == (401, 200)
        # SIGHUP reads it whatever the file's inode, size and times say (here: all kept).
        before = token_file.stat()
        with token_file.open("r+") as handle:
            handle.write(OLD + "\n")
        os.utime(token_file, ns=(before.st_atime_ns, before.st_mtime_ns))
        running.process.send_signal(signal.SIGHUP)
        wait_for(lambda: "(on SIGHUP)" in running.stderr(), "the reload on SIGHUP")
        assert (status(url, NEW), status(url, OLD)) == (401, 200)
        # A file with no token in it (a botched edit) is refused, and changes nothing.
        write_tokens(token_file, "# nothing yet")
        wait_for(lambda: "the token file is empty" in running.stderr(), "the warning")
        assert (status(url, NEW), status(url, OLD)) == (401, 200)
        assert running.process.poll() is None
        stderr = running.stderr()
    assert NEW not in stderr and OLD not in stderr  # the log never shows a token


def _reloads(server: Replica, words: str) -> int:
    return (server.audit_log.parent / "stderr").read_text().count(words)


@needs_nginx
def test_a_token_rotation_under_load_refuses_no_good_request(served: Path, tmp_path: Path) -> None:  # noqa: F811
    files = [tmp_path / "a-state" / "token", tmp_path / "b-state" / "token"]
    for path in files:
        write_tokens(path, OLD)
    with contextlib.ExitStack() as stack:
        servers = [
            stack.enter_context(replica(served, path, tmp_path / name))
            for path, name in zip(files, "ab", strict=True)
        ]
        base_url = stack.enter_context(nginx(tmp_path / "nginx", [s.port for s in servers]))
        held = {"token": OLD}  # what the clients send: the old token, then the new one
        answers: list[tuple[str, int]] = []
        stopping = anyio.Event()

        async def client() -> None:
            async with httpx2.AsyncClient(timeout=30) as http:
                while not stopping.is_set():
                    token = held["token"]
                    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
                    headers = {"Authorization": f"Bearer {token}", "Host": PUBLIC_HOST}
                    response = await http.post(f"{base_url}/rpc", json=body, headers=headers)
                    answers.append((token, response.status_code))

        def reloaded(words: str, times: int) -> bool:
            return all(_reloads(server, words) >= times for server in servers)

        async def rotate() -> None:
            await anyio.sleep(0.5)
            # 1. Every replica accepts the new token beside the old (one at a time).
            for path in files:
                write_tokens(path, OLD, NEW)
            await anyio.to_thread.run_sync(
                wait_for, lambda: reloaded("2 token(s) accepted", 1), "every replica to read both"
            )
            await anyio.sleep(0.5)
            # 2. The clients are given the new token.
            held["token"] = NEW
            await anyio.sleep(0.5)
            # 3. The old token is removed everywhere.
            for path in files:
                write_tokens(path, NEW)
            await anyio.to_thread.run_sync(
                wait_for, lambda: reloaded("1 token(s) accepted", 1), "every replica to drop the old"
            )
            await anyio.sleep(0.5)
            stopping.set()

        async def main() -> None:
            async with anyio.create_task_group() as group:
                for _ in range(WORKERS):
                    group.start_soon(client)
                group.start_soon(rotate)

        anyio.run(main)
        refused_old = [status(f"http://127.0.0.1:{s.port}", OLD) for s in servers]
    refused = [answer for answer in answers if answer[1] != 200]
    print(f"\ntoken rotation under load: {len(answers)} requests, {len(refused)} refused")
    assert refused == []
    assert {token for token, _ in answers} == {OLD, NEW}
    assert refused_old == [401, 401]


@needs_nginx
def test_a_secret_rotation_under_load_refuses_no_state(served: Path, tmp_path: Path) -> None:  # noqa: F811
    """2026-07-28 confirmations through nginx: the first request gets a `requestState`
    sealed by one replica, the retry that brings the answer may reach the other, which
    must open it, at every step of the rotation."""
    old, new = "1" * 64, "2" * 64
    files = [write_secret(tmp_path / f"secret-{name}", old) for name in "ab"]
    token_file = tmp_path / "state" / "token"
    with contextlib.ExitStack() as stack:
        servers = [
            stack.enter_context(
                replica(served, token_file, tmp_path / name, TOOLKILN_STATE_SECRET_FILE=str(path))
            )
            for path, name in zip(files, "ab", strict=True)
        ]
        base_url = stack.enter_context(nginx(tmp_path / "nginx", [s.port for s in servers]))
        headers = {"Authorization": f"Bearer {token_file.read_text().strip()}", "Host": PUBLIC_HOST}
        outcomes: list[Any] = []
        stopping = anyio.Event()

        async def confirm() -> None:
            async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
                while not stopping.is_set():
                    async with Client(
                        streamable_http_client(f"{base_url}/mcp", http_client=http),
                        mode="auto",
                        elicitation_callback=elicit,
                    ) as client:
                        try:
                            result = await client.call_tool("careful", {})
                            outcomes.append(result.content[0].text)  # type: ignore[union-attr]
                        except MCPError as error:
                            outcomes.append(error)

        async def rewrite(server: Replica, path: Path, lines: list[str], times: int) -> None:
            write_secret(path, "\n".join(lines))
            server.process.send_signal(signal.SIGHUP)
            await anyio.to_thread.run_sync(
                wait_for, lambda: _reloads(server, "secret(s) from now on") >= times, "the secret's reload"
            )
            await anyio.sleep(0.3)

        async def rotate() -> None:
            await anyio.sleep(0.5)
            steps = ([old, new], [new, old], [new])  # open both; seal with the new; drop the old
            for times, lines in enumerate(steps, start=1):
                if lines == [new]:  # the old one seals nothing now: wait for what it sealed
                    await anyio.sleep(1)
                for server, path in zip(servers, files, strict=True):
                    await rewrite(server, path, lines, times)
            await anyio.sleep(0.5)
            stopping.set()

        async def main() -> None:
            async with anyio.create_task_group() as group:
                for _ in range(WORKERS):
                    group.start_soon(confirm)
                group.start_soon(rotate)

        anyio.run(main)
    refused = [outcome for outcome in outcomes if not isinstance(outcome, str)]
    print(f"\nsecret rotation under load: {len(outcomes)} confirmations, {len(refused)} refused")
    assert refused == []
    assert all(outcome.startswith("done on ") for outcome in outcomes)
    assert len(outcomes) >= WORKERS
