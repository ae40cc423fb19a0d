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
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx2
import pytest
from click.testing import CliRunner

from tests.conftest import MakeTool, pids_alive
from tests.serve.http_server import RunningServer, http_server
from toolkiln.build.merge import build_catalog
from toolkiln.cli import cli
from toolkiln.clients.launch import DEFAULT_URL, locate_http_server
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
    options = ("--max-connections", "20", "--read-timeout", "60")
    with (
        http_server(project, state, *options, MARKER=str(marker)) as server,
        held_connections(server, 30, HALF_HEADER) as held,
    ):
        assert call_mark(server).status_code == 200
        deadline = time.monotonic() + CLOSED_WITHIN
        assert closed_by_server(held[0], deadline)  # the oldest made room
        assert not closed_by_server(held[-1], time.monotonic() + 0.5)  # the newest still waits


# --- hole 13: web pages ----------------------------------------------------------------

BODY = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "mark"}})


@pytest.fixture
def open_server(project: Path, state: Path, marker: Path) -> Iterator[RunningServer]:
    """A server with `--no-auth`: what stands between a web page and a tool is the Guard."""
    with http_server(project, state, "--no-auth", MARKER=str(marker)) as running:
        yield running


def post(server: RunningServer, path: str, headers: dict[str, str], body: str = BODY) -> httpx2.Response:
    return httpx2.post(f"{server.base_url}{path}", content=body, headers=headers, timeout=60)


def own_origin(server: RunningServer) -> str:
    return server.base_url  # http://127.0.0.1:<port>


def test_a_page_on_another_local_port_cannot_run_a_tool(open_server: RunningServer, marker: Path) -> None:
    port = int(open_server.base_url.rsplit(":", 1)[1])
    for origin in (f"http://localhost:{port + 1}", f"http://127.0.0.1:{port + 1}", "http://localhost"):
        simple = post(open_server, "/rpc", {"Origin": origin, "Content-Type": "text/plain"})
        assert simple.status_code == 403, (origin, simple.text)
        as_json = post(open_server, "/rpc", {"Origin": origin, "Content-Type": "application/json"})
        assert as_json.status_code == 403, origin
    assert not marker.exists()


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
     "multipart/form-data; boundary=x", "application/jsonp", "application/json-seq", ""],
)  # fmt: skip
@pytest.mark.parametrize("path", ["/rpc", "/mcp"])
def test_rpc_and_mcp_take_json_only(
    open_server: RunningServer, marker: Path, path: str, content_type: str
) -> None:
    headers = {"Content-Type": content_type, "Accept": "application/json, text/event-stream"}
    assert post(open_server, path, headers).status_code == 415
    assert not marker.exists()


def test_the_servers_own_origin_and_json_with_a_charset_are_served(
    open_server: RunningServer, marker: Path
) -> None:
    headers = {"Origin": own_origin(open_server), "Content-Type": "Application/JSON; charset=utf-8"}
    response = post(open_server, "/rpc", headers)
    assert response.status_code == 200, response.text
    assert marker.read_text() == "ran\n"


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "null"},  # a sandboxed frame, a file:// page, a redirect chain
        {"Host": "rebound.evil.example"},  # DNS rebinding: the attacker's name, our address
        {"Host": "rebound.evil.example", "Origin": "http://rebound.evil.example"},
        {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"},  # a browser that left Origin out
        {"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors"},  # another port is the same site
    ],
)
def test_the_rest_of_the_class_is_refused(
    open_server: RunningServer, marker: Path, headers: dict[str, str]
) -> None:
    response = post(open_server, "/rpc", {"Content-Type": "application/json", **headers})
    assert response.status_code in (403, 421), response.text
    assert not marker.exists()
    assert any(record["event"] == "denied" for record in open_server.audit_records())


def test_following_a_link_to_the_dashboard_still_works(open_server: RunningServer) -> None:
    navigate = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
    assert httpx2.get(f"{open_server.base_url}/", headers=navigate).status_code == 200
    fetched = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"}
    assert httpx2.get(f"{open_server.base_url}/", headers=fetched).status_code == 403


def test_no_get_runs_a_tool_and_no_upgrade_gets_past_the_guard(
    open_server: RunningServer, marker: Path
) -> None:
    base = open_server.base_url
    assert httpx2.get(f"{base}/rpc", params={"body": BODY}).status_code == 405
    assert httpx2.get(f"{base}/dashboard/call").status_code == 405
    assert httpx2.get(f"{base}/dashboard/logout").status_code == 405
    upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Origin": "http://localhost:1"}  # fmt: skip
    for path in ("/mcp", "/rpc", "/"):
        assert httpx2.get(f"{base}{path}", headers=upgrade).status_code == 403
    assert not marker.exists()


def test_a_form_from_another_origin_cannot_reach_the_dashboard(
    project: Path, state: Path, marker: Path
) -> None:
    with http_server(project, state, MARKER=str(marker)) as server:
        form = {"Origin": "http://localhost:1", "Content-Type": "application/x-www-form-urlencoded"}
        for path in ("/dashboard/login", "/dashboard/logout", "/dashboard/call"):
            assert post(server, path, form, body=f"token={server.token}").status_code == 403
        assert post(server, "/dashboard/login", {**form, "Origin": "null"}).status_code == 403


# --- hole 15: X-Forwarded-For ----------------------------------------------------------


def audited_clients(server: RunningServer) -> list[str]:
    return [record.get("client") for record in server.audit_records()]


def test_x_forwarded_for_is_not_believed_from_a_client(project: Path, state: Path) -> None:
    with http_server(project, state) as server:
        spoofed = {"Authorization": "Bearer wrong", "X-Forwarded-For": "203.0.113.66"}
        assert server.rpc("ping", headers=spoofed).status_code == 401
        assert audited_clients(server) == ["127.0.0.1"]


def test_x_forwarded_for_is_believed_from_a_configured_proxy(project: Path, state: Path) -> None:
    with http_server(project, state, "--forwarded-allow-ips", "10.9.9.9, 127.0.0.1") as server:
        forwarded = {"Authorization": "Bearer wrong", "X-Forwarded-For": "203.0.113.66"}
        assert server.rpc("ping", headers=forwarded).status_code == 401
        assert audited_clients(server) == ["203.0.113.66"]


# --- hole 16: a stale discovery file ---------------------------------------------------


@pytest.fixture
def xdg_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The default state folder (where `toolkiln config --http` looks), in tmp_path."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    folder = tmp_path / "xdg" / "toolkiln"
    folder.mkdir(parents=True)
    return folder


def test_a_sigkilled_servers_discovery_file_is_not_believed(
    project: Path, xdg_state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with http_server(project, xdg_state, "--no-auth") as server:
        assert locate_http_server().url == server.mcp_url  # while it runs: found
        server.process.kill()  # SIGKILL: it cannot remove its file
        # Not yet reaped: a zombie, whose pid still answers kill(pid, 0).
        assert pids_alive([server.process.pid]) == []
        assert (xdg_state / "server.json").exists()
        assert locate_http_server().url == DEFAULT_URL
        server.process.wait()
        # Reaped, and its pid since taken by another process.
        entry = json.loads((xdg_state / "server.json").read_text())
        with subprocess.Popen(["sleep", "30"]) as other:
            try:
                (xdg_state / "server.json").write_text(json.dumps({**entry, "pid": other.pid}))
                assert locate_http_server().url == DEFAULT_URL
                result = CliRunner().invoke(cli, ["config", "claude-code", "--http"], catch_exceptions=False)
                assert server.mcp_url not in result.output and DEFAULT_URL in result.output
            finally:
                other.kill()
