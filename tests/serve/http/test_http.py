"""`toolkiln serve --http` as a real process on loopback: the SDK client in both protocol
eras, and raw HTTP for auth, Host/Origin, /rpc, /health, limits, TLS, the discovery
file, the audit log, the concurrency cap and disconnects."""

from __future__ import annotations

import datetime
import ipaddress
import json
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import httpx2
import pytest
from click.testing import CliRunner

from tests.conftest import MakeTool, child_env, pids_alive
from tests.serve.http_server import RunningServer, http_server, mcp_client
from toolkiln.build.merge import build_catalog
from toolkiln.cli import cli
from toolkiln.discover import discover_tools

ECHO = """\
#!/bin/bash
if [ "$1" = "--help" ]; then
  echo '{"description": "Print a message back"}'
  echo '{"message": {"required": true, "value_type": "string"}}' >&2
  exit 0
fi
printf '%s\\n' "$message"
"""

LOGIN = """\
#!/bin/bash
# Tool: login
# Description: Pretend to log in
# @param user: Who (type: string, required: true)
# @param pin: A secret number (type: string, required: true, secret: true)
# @param note: Anything (type: string)
echo "{\\"user\\": \\"$user\\"}"
"""

SLOW = """\
#!/bin/bash
# Tool: slow
# Description: Count how many of us run at once, then take a while
mkdir -p "$RUNNING"
touch "$RUNNING/$$"
ls "$RUNNING" | wc -l >> "$SEEN"
sleep 0.4
rm "$RUNNING/$$"
echo done
"""

HANG = """\
#!/bin/bash
# Tool: hang
# Description: Sleep until stopped
sleep 300 &
echo $! >> "$PIDS"
echo $$ >> "$PIDS"
wait
"""


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("echo.sh", ECHO)
    make_tool("login/run.sh", LOGIN)
    make_tool("slow/run.sh", SLOW)
    make_tool("hang/run.sh", HANG)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.fixture
def server(served: Path, state: Path) -> object:
    with http_server(served, state) as running:
        yield running


# --- MCP over Streamable HTTP, both eras -------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("stateless", [False, True])
async def test_the_sdk_client_lists_and_calls(served: Path, state: Path, mode: str, stateless: bool) -> None:
    with http_server(served, state, *(["--stateless"] if stateless else [])) as running:
        async with mcp_client(running, mode) as client:
            names = sorted(tool.name for tool in (await client.list_tools()).tools)
            echo = await client.call_tool("echo", {"message": "über http"})
            login = await client.call_tool("login", {"user": "ada", "pin": "1234"})
            protocol = client.protocol_version
    assert protocol == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    assert names == ["echo", "hang", "login", "slow"]
    assert echo.content[0].text == "über http"  # type: ignore[union-attr]
    assert login.structured_content == {"user": "ada"}


# --- auth, Host and Origin ------------------------------------------------------------


def test_every_route_but_health_needs_the_token(server: RunningServer) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {server.token}"}):
        for path in ("/rpc", "/mcp"):
            response = httpx2.post(f"{server.base_url}{path}", json=body, headers=headers)
            assert response.status_code == 401, (path, headers)
            assert response.headers["www-authenticate"] == 'Bearer realm="toolkiln"'
    assert server.rpc("tools/list").status_code == 200
    health = httpx2.get(f"{server.base_url}/health")
    assert health.status_code == 200
    assert health.json()["status"] == "ok"
    assert health.json()["tools"] == 4
    assert health.json()["uptime_seconds"] >= 0


def test_the_token_file_is_created_private(server: RunningServer) -> None:
    token_file = server.state_dir / "token"
    assert token_file.stat().st_mode & 0o777 == 0o600
    assert len(server.token) >= 32


def test_a_foreign_origin_gets_403_and_a_foreign_host_421(server: RunningServer) -> None:
    assert server.rpc("ping", headers={"Origin": "https://evil.example"}).status_code == 403
    assert server.rpc("ping", headers={"Origin": "http://localhost:5173"}).status_code == 403  # another port
    assert server.rpc("ping", headers={"Origin": server.base_url}).status_code == 200  # its own
    assert server.rpc("ping", headers={"Host": "evil.example"}).status_code == 421
    # The checks come before the token: a rebinding page learns nothing.
    assert (
        httpx2.get(f"{server.base_url}/health", headers={"Origin": "https://evil.example"}).status_code == 403
    )


def test_allow_origin_adds_an_origin(served: Path, state: Path) -> None:
    with http_server(served, state, "--allow-origin", "https://app.example") as running:
        ok = running.rpc("ping", headers={"Origin": "https://app.example"})
        other = running.rpc("ping", headers={"Origin": "https://other.example"})
    assert (ok.status_code, other.status_code) == (200, 403)


def test_no_auth_is_refused_beyond_loopback(served: Path, state: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "toolkiln", "serve", "--http", "--host", "0.0.0.0", "--no-auth",
         "--config-dir", str(served), "--token-file", str(state / "token")],
        capture_output=True, text=True, env=child_env(), timeout=60,
    )  # fmt: skip
    assert result.returncode == 1
    assert "--no-auth is refused on 0.0.0.0" in result.stderr


def test_no_auth_on_loopback_needs_no_token(served: Path, state: Path) -> None:
    with http_server(served, state, "--no-auth") as running:
        response = httpx2.post(f"{running.base_url}/rpc", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert response.status_code == 200
    assert not (state / "token").exists()


# --- /rpc -----------------------------------------------------------------------------


def test_rpc_answers_plain_json_rpc(server: RunningServer) -> None:
    initialize = server.rpc("initialize", {}).json()
    assert initialize["result"]["serverInfo"]["name"] == "toolkiln"
    tools = server.rpc("tools/list").json()["result"]["tools"]
    assert [tool["name"] for tool in tools] == ["echo", "hang", "login", "slow"]
    assert tools[0]["inputSchema"]["required"] == ["message"]
    call = server.rpc("tools/call", {"name": "echo", "arguments": {"message": "hi"}}).json()
    assert call == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "_meta": call["result"]["_meta"],
            "content": [{"type": "text", "text": "hi"}],
            "isError": False,
            "resultType": "complete",
        },
    }
    invalid = server.rpc("tools/call", {"name": "echo", "arguments": {}}).json()["result"]
    assert invalid["isError"] is True
    assert "'message' is required" in invalid["content"][0]["text"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", -32700),
        (b"[]", -32600),
        (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', -32600),
        (b'"just a string"', -32600),
        (b'{"id": 1, "method": "ping"}', -32600),
        (b'{"jsonrpc": "2.0", "id": 1, "method": 7}', -32600),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "no/such"}', -32601),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": []}', -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}', -32602),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "e", "arguments": 3}}',
            -32602,
        ),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "nope"}}', -32602),
    ],
)
def test_rpc_bad_input_gets_the_right_error_code(server: RunningServer, body: bytes, code: int) -> None:
    headers = {**server.auth(), "Content-Type": "application/json"}
    response = httpx2.post(f"{server.base_url}/rpc", content=body, headers=headers)
    assert response.json()["error"]["code"] == code
    # ... and the server is none the worse for it.
    assert server.rpc("tools/call", {"name": "echo", "arguments": {"message": "ok"}}).json()["result"][
        "content"
    ]


def test_a_notification_gets_no_answer(server: RunningServer) -> None:
    response = httpx2.post(
        f"{server.base_url}/rpc", json={"jsonrpc": "2.0", "method": "ping"}, headers=server.auth()
    )
    assert (response.status_code, response.content) == (202, b"")


def test_oversized_bodies_get_413_before_parsing(served: Path, state: Path) -> None:
    with http_server(served, state, "--max-body", "2048") as running:
        big = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "echo", "arguments": {"message": "x" * 5000}}}  # fmt: skip
        for path in ("/rpc", "/mcp"):
            response = httpx2.post(f"{running.base_url}{path}", json=big, headers=running.auth())
            assert response.status_code == 413, path
        assert running.rpc("ping").status_code == 200


# --- TLS --------------------------------------------------------------------------------


def test_tls_serves_https(served: Path, state: Path, tmp_path: Path) -> None:
    cert, key = _self_signed_certificate(tmp_path)
    with http_server(served, state, "--tls-cert", str(cert), "--tls-key", str(key)) as running:
        assert running.base_url.startswith("https://127.0.0.1:")
        trust = ssl.create_default_context(cafile=str(cert))
        response = httpx2.get(f"{running.base_url}/health", verify=trust)
        call = running.rpc("tools/call", {"name": "echo", "arguments": {"message": "secure"}}, verify=trust)
    assert response.json()["status"] == "ok"
    assert call.json()["result"]["content"][0]["text"] == "secure"


def _self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


# --- the discovery file -------------------------------------------------------------------


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_the_discovery_file_lives_as_long_as_the_server(served: Path, state: Path, signum: int) -> None:
    with http_server(served, state) as running:
        server_file = state / "server.json"
        info = json.loads(server_file.read_text())
        assert server_file.stat().st_mode & 0o777 == 0o600
        assert info["pid"] == running.process.pid
        assert info["url"].startswith("http://127.0.0.1:") and info["url"].endswith("/mcp")
        assert info["token_file"] == str(state / "token")
        assert info["tools"] == 4
        assert info["version"]
        running.stop(signum)
        assert not server_file.exists()


# --- the audit log ----------------------------------------------------------------------


def test_calls_and_denials_are_audited_with_secrets_redacted(server: RunningServer) -> None:
    server.rpc(
        "tools/call",
        {"name": "login", "arguments": {"user": "ada", "pin": "4321", "note": "ghp_" + "a" * 36}},
    )
    server.rpc("tools/call", {"name": "echo", "arguments": {}})
    httpx2.post(f"{server.base_url}/rpc", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    records = server.audit_records()
    login, invalid, denied = records
    assert login["event"] == "tools/call"
    assert login["transport"] == "rpc"
    assert login["tool"] == "login"
    assert login["arguments"] == {"user": "ada", "pin": "[redacted]", "note": "[redacted]"}
    assert login["success"] is True and login["exit_code"] == 0 and login["error"] is None
    assert login["duration_ms"] > 0
    datetime.datetime.fromisoformat(login["timestamp"])
    assert invalid["success"] is False and invalid["error"].startswith("Invalid arguments for tool 'echo'")
    assert denied["event"] == "denied" and denied["status"] == 401 and denied["path"] == "/rpc"
    assert "4321" not in server.audit_log.read_text()


@pytest.mark.anyio
async def test_mcp_calls_are_audited_with_the_client_name(server: RunningServer) -> None:
    async with mcp_client(server, "legacy") as client:
        await client.call_tool("echo", {"message": "hello"})
    record = json.loads(server.audit_log.read_text().splitlines()[-1])
    assert (record["transport"], record["tool"], record["success"]) == ("http", "echo", True)
    assert record["client"] == "mcp"


def test_the_audit_command_reads_the_log(server: RunningServer, served: Path) -> None:
    for message in ("one", "two"):
        server.rpc("tools/call", {"name": "echo", "arguments": {"message": message}})
    server.rpc("tools/call", {"name": "login", "arguments": {"user": "x", "pin": "1"}})
    result = CliRunner().invoke(
        cli, ["audit", "--audit-log", str(server.audit_log), "--tool", "echo", "--tail", "1", "--json"]
    )
    assert result.exit_code == 0
    [line] = result.output.splitlines()
    assert json.loads(line)["arguments"] == {"message": "two"}
    table = CliRunner().invoke(cli, ["audit", "--audit-log", str(server.audit_log)])
    assert table.output.splitlines()[0].split() == [
        "TIME",
        "TRANSPORT",
        "CLIENT",
        "TOOL",
        "MS",
        "OK",
        "DETAIL",
    ]
    assert len(table.output.splitlines()) == 4


# --- limits, disconnects, shutdown ----------------------------------------------------------


def test_calls_beyond_the_cap_wait_their_turn(served: Path, state: Path, tmp_path: Path) -> None:
    seen = tmp_path / "seen"
    env = {"RUNNING": str(tmp_path / "running"), "SEEN": str(seen)}
    with http_server(served, state, "--max-concurrency", "2", **env) as running:
        results: list[httpx2.Response] = []

        async def call_all() -> None:
            async with (
                httpx2.AsyncClient(headers=running.auth(), timeout=60) as http,
                anyio.create_task_group() as group,
            ):
                for _ in range(5):
                    group.start_soon(_post_call, http, running, results)

        anyio.run(call_all)
    assert [r.json()["result"]["content"][0]["text"] for r in results] == ["done"] * 5
    counts = [int(line) for line in seen.read_text().split()]
    assert len(counts) == 5
    assert max(counts) <= 2


async def _post_call(
    http: httpx2.AsyncClient, running: RunningServer, results: list[httpx2.Response]
) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow"}}
    results.append(await http.post(f"{running.base_url}/rpc", json=body))


def test_a_client_that_disconnects_has_its_tool_stopped(served: Path, state: Path, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    with http_server(served, state, PIDS=str(pids)) as running:
        with pytest.raises(httpx2.ReadTimeout):
            running.rpc("tools/call", {"name": "hang"}, timeout=2)
        recorded = [int(pid) for pid in pids.read_text().split()]
        assert len(recorded) == 2
        assert pids_alive(recorded) == []
        # The record is written as the cancellation unwinds, just after the kill.
        deadline = time.monotonic() + 10
        while not running.audit_log.exists() or '"cancelled"' not in running.audit_log.read_text():
            assert time.monotonic() < deadline, "no audit record of the cancelled call"
            time.sleep(0.05)
        record = json.loads(running.audit_log.read_text().splitlines()[-1])
        assert (record["tool"], record["error"]) == ("hang", "cancelled")


def test_shutdown_stops_calls_in_flight(served: Path, state: Path, tmp_path: Path) -> None:
    """Past the drain's grace (serve/http/drain.py), what still runs is stopped."""
    pids = tmp_path / "pids"
    with http_server(served, state, "--drain-seconds", "0.5", PIDS=str(pids)) as running:
        address = urlsplit(running.base_url)
        with socket.create_connection((address.hostname, address.port)) as raw:
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "hang"}})
            raw.sendall(
                (f"POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {running.token}\r\n"
                 f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n{body}").encode()
            )  # fmt: skip
            while not pids.exists() or len(pids.read_text().split()) < 2:
                time.sleep(0.05)
            running.stop(signal.SIGTERM)
        recorded = [int(pid) for pid in pids.read_text().split()]
        assert pids_alive(recorded) == []
        assert not (state / "server.json").exists()


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_mcp_client_that_goes_away_has_its_tool_stopped(
    served: Path, state: Path, tmp_path: Path, mode: str
) -> None:
    pids = tmp_path / "pids"
    with http_server(served, state, PIDS=str(pids)) as running:
        async with mcp_client(running, mode) as client, anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "hang", {})
            while not pids.exists() or len(pids.read_text().split()) < 2:
                await anyio.sleep(0.05)
            group.cancel_scope.cancel()  # the client stops waiting and closes its connection
        recorded = [int(pid) for pid in pids.read_text().split()]
        assert pids_alive(recorded) == []
        assert running.process.poll() is None  # the server itself carries on
