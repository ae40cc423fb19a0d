"""Issue 16, holes 7, 13 and 15, against `toolkiln serve --http` as a real process on
loopback, with raw sockets and raw HTTP requests:

- 7: connections that never finish their request (half a header, a body that never
  ends, nothing at all) are closed after `--read-timeout`, and at most a capped number
  are held (derived from the open-file limit): a legitimate call still succeeds while
  hundreds are held by a server at 512 open files, and the log stays small;
- 13: only the server's own origin (and `--allow-origin`) may send requests, `/rpc` and
  `/mcp` take JSON only, and the rest of that class: DNS rebinding, `Origin: null`, a
  browser's cross-site request without an Origin, forms, GETs, upgrades;
- 15: `X-Forwarded-For` is believed only from `--forwarded-allow-ips`.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx2
import pytest

from tests.conftest import MakeTool
from tests.serve.http_server import RunningServer, http_server
from toolkiln.build import build_catalog
from toolkiln.discover import discover_tools

# Leaves a marker file behind, so that a test can tell whether it ran.
MARK = """\
#!/bin/bash
# Tool: mark
# Description: Leave a marker file
# @param word: What to write (type: string, default: ran)
echo "$word" >> "$MARKER"
echo marked
"""

CLOSED_WITHIN = 30  # seconds a test waits for the server to close what it should


@pytest.fixture
def project(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("mark/run.sh", MARK)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.fixture
def state(tmp_path: Path) -> Path:
    path = tmp_path / "state"
    path.mkdir()
    return path


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "marker"


def call_mark(server: RunningServer, **request: object) -> httpx2.Response:
    return server.rpc("tools/call", {"name": "mark", "arguments": {}}, timeout=60, **request)


@contextmanager
def held_connections(server: RunningServer, count: int, opening: bytes) -> Iterator[list[socket.socket]]:
    """`count` connections that each sent `opening` and then nothing more."""
    port = int(server.base_url.rsplit(":", 1)[1])
    with ExitStack() as stack:
        held = []
        for _ in range(count):
            connection = stack.enter_context(socket.create_connection(("127.0.0.1", port), timeout=30))
            if opening:
                connection.sendall(opening)
            held.append(connection)
        yield held


def closed_by_server(connection: socket.socket, deadline: float) -> bool:
    """Whether the server closes `connection` before `deadline` (whatever it says first)."""
    while time.monotonic() < deadline:
        connection.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            if connection.recv(4096) == b"":
                return True
        except (ConnectionResetError, BrokenPipeError):
            return True
        except TimeoutError:
            return False
    return False


def log_since_start(server: RunningServer) -> list[str]:
    """The server's log lines after its start (and its banner)."""
    lines = server.stderr().splitlines()
    start = next(i for i, line in enumerate(lines) if "Application startup complete" in line)
    return lines[start + 1 :]


HALF_HEADER = b"POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: applica"


# --- hole 7: connections ---------------------------------------------------------------


def test_a_server_at_512_open_files_serves_while_600_connections_hang(
    project: Path, state: Path, marker: Path
) -> None:
    with http_server(project, state, open_files=512, MARKER=str(marker)) as server:
        with held_connections(server, 600, HALF_HEADER):
            response = call_mark(server)
            assert response.status_code == 200, response.text
            assert response.json()["result"]["content"][0]["text"] == "marked"
            assert httpx2.get(f"{server.base_url}/health", timeout=30).status_code == 200
        assert server.process.poll() is None
        lines = log_since_start(server)
    assert "Too many open files" not in "\n".join(lines)
    assert len(lines) < 20, "\n".join(lines[:60])


def test_connections_that_never_finish_a_request_are_closed(project: Path, state: Path, marker: Path) -> None:
    with http_server(project, state, "--read-timeout", "1", MARKER=str(marker)) as server:
        token = server.token.encode()
        endless_body = (
            b"POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Authorization: Bearer " + token + b"\r\nContent-Length: 1000\r\n\r\n" + b'{"jsonrpc": "2.0"'
        )
        with (
            held_connections(server, 100, HALF_HEADER) as half_headers,
            held_connections(server, 100, b"") as silent,
            held_connections(server, 10, endless_body) as endless,
        ):
            deadline = time.monotonic() + CLOSED_WITHIN
            still_open = [c for c in [*half_headers, *silent, *endless] if not closed_by_server(c, deadline)]
            assert still_open == []
            assert call_mark(server).status_code == 200  # the server itself is fine
        lines = log_since_start(server)
    assert len(lines) < 20, "\n".join(lines[:60])


def test_a_connection_over_the_cap_closes_the_one_waiting_longest(
    project: Path, state: Path, marker: Path
) -> None:
    with http_server(
        project, state, "--max-connections", "20", "--read-timeout", "60", MARKER=str(marker)
    ) as server:
        with held_connections(server, 30, HALF_HEADER) as held:
            assert call_mark(server).status_code == 200
            deadline = time.monotonic() + CLOSED_WITHIN
            assert closed_by_server(held[0], deadline)  # the oldest made room
            assert not closed_by_server(held[-1], time.monotonic() + 0.5)  # the newest still waits
