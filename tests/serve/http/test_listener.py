"""`serve --http` on an address it cannot have: one line naming the port and host and
what to do, exit status 1, no traceback; the port held by a real socket of the test."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import child_env


@pytest.fixture
def held_port() -> Iterator[int]:
    """A loopback port that something else is listening on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        yield holder.getsockname()[1]


def serve(config_dir: Path, state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable, "-m", "toolkiln", "serve", "--http", "--config-dir", str(config_dir),
        "--token-file", str(state / "token"), *args,
    ]  # fmt: skip
    return subprocess.run(
        command, capture_output=True, text=True, timeout=60, env=child_env(), stdin=subprocess.DEVNULL
    )


@pytest.mark.parametrize("port_option", ["--port", "-p"])
def test_a_port_in_use_is_one_line_that_says_what_to_do(
    served: Path, state: Path, held_port: int, port_option: str
) -> None:
    result = serve(served, state, port_option, str(held_port))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    problem = [line for line in result.stderr.splitlines() if "error" in line]
    assert problem == [
        f"toolkiln: error: port {held_port} on 127.0.0.1 is in use (another toolkiln serve?): stop it, "
        "or choose another port with --port/-p (--port 0 picks a free one)"
    ]
    assert not (state / "server.json").exists(), "no discovery file for a server that never listened"


def test_a_host_that_is_not_this_machine_says_so(served: Path, state: Path) -> None:
    result = serve(served, state, "--host", "192.0.2.1", "--port", "0")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "cannot listen on 192.0.2.1: it is not an address of this machine" in result.stderr
