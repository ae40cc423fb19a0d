"""Issue 30, finding 6: behind nginx on 127.0.0.1 with `--forwarded-allow-ips 127.0.0.1`
(the README's layout, as tests/serve/replicas/test_replicas.py runs it), a client's own
X-Forwarded-For neither names the address its denials are audited under nor gets it
past the per-address login limit: only the hop nginx appended is believed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from tests.conftest import MakeTool, child_env
from tests.serve.dashboard.conftest import hidden_csrf
from tests.serve.replicas.test_replicas import PUBLIC_HOST, needs_nginx, nginx, replica
from toolkiln.audit import read_audit
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.serve.dashboard.throttle import CLIENT_BURST
from toolkiln.serve.http.forwarded import TrustedProxies, last_hop

ECHO = """\
#!/bin/bash
# Tool: echo
# Description: Print a message back
# @param message: What to print (type: string, required: true)
printf '%s\\n' "$message"
"""


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("echo.sh", ECHO)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


def wrong_login(http: httpx2.Client, spoofed: str) -> int:
    page = http.get("/dashboard/login")
    assert page.status_code == 200, page.text
    form = {"token": "not-it", "csrf_token": hidden_csrf(page.text)}
    return http.post("/dashboard/login", data=form, headers={"X-Forwarded-For": spoofed}).status_code


@needs_nginx
def test_a_client_behind_nginx_cannot_choose_its_address(served: Path, tmp_path: Path) -> None:
    token_file = tmp_path / "state" / "token"
    with (
        replica(served, token_file, tmp_path / "replica") as server,
        nginx(tmp_path / "nginx", [server.port]) as base_url,
        httpx2.Client(base_url=base_url, headers={"Host": PUBLIC_HOST}, timeout=30) as http,
    ):
        spoofed = {"Authorization": "Bearer wrong", "X-Forwarded-For": "203.0.113.9"}
        assert (
            http.post("/rpc", json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=spoofed).status_code
            == 401
        )
        # A new address every time: the limit still counts them as the one client they are.
        statuses = [wrong_login(http, f"203.0.113.{index}") for index in range(CLIENT_BURST + 1)]
        assert statuses == [401] * CLIENT_BURST + [429]
    clients = {
        record.get("client") for record in read_audit(server.audit_log) if record.get("event") == "denied"
    }
    assert clients == {"127.0.0.1"}  # nginx's word ($remote_addr), never the client's


def test_only_the_last_hop_from_a_trusted_peer_is_believed() -> None:
    assert last_hop([b"203.0.113.9, 127.0.0.1"]) == "127.0.0.1"
    assert last_hop([b"203.0.113.9", b"198.51.100.4"]) == "198.51.100.4"  # two header lines
    assert last_hop([b"203.0.113.9, not-an-address"]) is None  # the peer's own address stays
    assert last_hop([b"1.2.3.4," + b"9" * 3000]) is None
    proxies = TrustedProxies(["10.0.0.5", "192.168.0.0/24", "::1"])
    assert "10.0.0.5" in proxies and "192.168.0.77" in proxies and "::1" in proxies
    assert "10.0.0.6" not in proxies and None not in proxies and "garbage" not in proxies


def test_a_proxy_that_is_no_address_is_refused_at_start(served: Path, tmp_path: Path) -> None:
    command = [
        sys.executable, "-m", "toolkiln", "serve", "--http", "--port", "0", "--config-dir", str(served),
        "--token-file", str(tmp_path / "state" / "token"), "--forwarded-allow-ips", "10.0.0.5, proxy.local",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=child_env())
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "--forwarded-allow-ips: 'proxy.local' is not an IP address or network" in done.stderr
