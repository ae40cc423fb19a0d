"""The Host check and the address the server is bound to (serve/http/guard.py).

A server bound to 127.0.0.11 prints `http://127.0.0.11:<port>/health`; that URL, a
probe by the bound IP, and a proxy reached by a loopback IP (nginx, which passes the
Host it was asked for) are served, and none is audited as a denial. An IP written as
the Host cannot be a DNS-rebinding attack (the browser connects to exactly that
address), so the class is: the address a request reached is allowed, as an IP, on any
bind; with a loopback bind, any loopback IP. A name nobody allowed is still 421, and
so is an IP the request did not reach.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.conftest import MakeTool
from tests.serve.http_server import RunningServer, http_server
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

ECHO = """#!/bin/bash
# Tool: echo
# Description: Print a message back
# @param message: What to print (type: string, required: true)
echo "$message"
"""
NGINX = shutil.which("nginx") or next(
    (path for path in ("/usr/sbin/nginx", "/sbin/nginx") if os.access(path, os.X_OK)), None
)


@pytest.fixture
def project(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("echo.sh", ECHO)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


def _bound(
    project: Path, state: Path, host: str, *args: str
) -> contextlib.AbstractContextManager[RunningServer]:
    return http_server(project, state, *args, transport=("--http", "--host", host, "--port", "0"))


def _port(server: RunningServer) -> int:
    return int(server.base_url.rsplit(":", 1)[1])


def _denials(server: RunningServer) -> list[dict[str, object]]:
    return [record for record in server.audit_records() if record["event"] == "denied"]


def test_a_probe_by_the_bound_loopback_address_is_served(project: Path, tmp_path: Path) -> None:
    with _bound(project, tmp_path / "state", "127.0.0.11") as server:
        assert server.base_url.startswith("http://127.0.0.11:")  # what the banner and server.json say
        health = httpx2.get(f"{server.base_url}/health")
        assert health.status_code == 200 and health.json()["status"] == "ok"
        assert httpx2.get(f"{server.base_url}/ready").json() == {"status": "ready"}
        assert server.rpc("tools/list").status_code == 200
        # A name is still checked: the DNS-rebinding case, and names dressed as the address.
        port = _port(server)
        names = [
            "rebound.evil.example",
            "127.0.0.11.evil.example",
            f"127.0.0.11:{port}@evil.example",
            "0x7f.0.0.11",
            "127.0.0.11.",
            f"[127.0.0.11]:{port}",
        ]
        for name in names:
            rebound = httpx2.get(f"{server.base_url}/health", headers={"Host": name})
            assert rebound.status_code == 421, name
        assert [record["status"] for record in _denials(server)] == [421] * len(names)


def test_on_a_wildcard_bind_the_address_a_request_reached_is_allowed(project: Path, tmp_path: Path) -> None:
    allowed = ("--allow-host", "toolkiln.test")
    with _bound(project, tmp_path / "state", "0.0.0.0", *allowed) as server:
        port = _port(server)
        for address in ("127.0.0.1", "127.0.0.11"):
            assert httpx2.get(f"http://{address}:{port}/health").status_code == 200, address
        # An IP the request did not reach is not the server's address: refused.
        other = httpx2.get(f"http://127.0.0.1:{port}/health", headers={"Host": f"192.0.2.99:{port}"})
        assert other.status_code == 421
        assert (
            httpx2.get(f"http://127.0.0.1:{port}/health", headers={"Host": "evil.example"}).status_code == 421
        )


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 on this machine")
def test_an_ipv6_literal_of_the_bound_address_is_allowed(project: Path, tmp_path: Path) -> None:
    with _bound(project, tmp_path / "state", "::", "--allow-host", "toolkiln.test") as server:
        port = _port(server)
        assert httpx2.get(f"http://[::1]:{port}/health").status_code == 200
        assert httpx2.get(f"http://[::1]:{port}/ready").status_code == 200
        refused = httpx2.get(f"http://[::1]:{port}/health", headers={"Host": f"[fd00::99]:{port}"})
        assert refused.status_code == 421


def _free_port(address: str) -> int:
    with socket.socket() as probe:
        probe.bind((address, 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def _nginx_by_ip(prefix: Path, listen: str, upstream: str) -> Iterator[str]:
    """nginx on `listen` (an IP), passing the Host it was asked for, as the README's does."""
    assert NGINX is not None
    prefix.mkdir()
    port = _free_port(listen)
    user = "user root;\n" if os.geteuid() == 0 else ""
    temp = "".join(
        f"  {kind}_temp_path {prefix}/{kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = (
        f"{user}worker_processes 1;\npid {prefix}/nginx.pid;\nerror_log stderr notice;\n"
        f"events {{ worker_connections 64; }}\nhttp {{\n  access_log off;\n{temp}"
        f"  server {{\n    listen {listen}:{port};\n    location / {{\n      proxy_pass http://{upstream};\n"
        "      proxy_http_version 1.1;\n      proxy_set_header Host $host;\n    }\n  }\n}\n"
    )
    (prefix / "nginx.conf").write_text(conf)
    with (prefix / "stderr").open("wb") as stderr:
        process = subprocess.Popen(
            [NGINX, "-c", str(prefix / "nginx.conf"), "-p", str(prefix), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection((listen, port), timeout=1):
                break
            assert process.poll() is None and time.monotonic() < deadline, "nginx did not start"
            time.sleep(0.05)
        yield f"http://{listen}:{port}"
    finally:
        process.send_signal(signal.SIGQUIT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.mark.skipif(NGINX is None, reason="nginx is not installed")
def test_through_nginx_by_ip_probes_and_calls_are_served(project: Path, tmp_path: Path) -> None:
    """The Inspector, which cannot set Host, through nginx by its IP."""
    with _bound(project, tmp_path / "state", "127.0.0.11", "--allow-host", "toolkiln.test") as server:
        with _nginx_by_ip(tmp_path / "nginx", "127.0.0.12", f"127.0.0.11:{_port(server)}") as proxy:
            assert httpx2.get(f"{proxy}/health").status_code == 200
            assert httpx2.get(f"{proxy}/ready").status_code == 200
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            listed = httpx2.post(f"{proxy}/rpc", json=body, headers=server.auth())
            assert listed.status_code == 200, listed.text
            assert [tool["name"] for tool in listed.json()["result"]["tools"]] == ["echo"]
        assert _denials(server) == []
