"""A real `redis-server` (Debian's) for the tests of the shared task store: on a free
loopback port, its files in a folder of the test's, nothing saved to disk (unless
`persistent`: then what it holds survives a stop and start, as Debian's service's does)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REDIS_SERVER = shutil.which("redis-server") or (
    "/usr/bin/redis-server" if os.access("/usr/bin/redis-server", os.X_OK) else None
)
needs_redis = pytest.mark.skipif(
    REDIS_SERVER is None,
    reason="redis-server is not installed (apt-get install -y --no-install-recommends redis-server; "
    ".ci/run does it)",
)
STARTUP_SECONDS = 20


@dataclass
class RedisServer:
    folder: Path
    port: int
    password: str | None = None
    process: subprocess.Popen[bytes] | None = None
    persistent: bool = False  # saves its data when stopped and loads it when started, as a service does

    @property
    def url(self) -> str:
        secret = f":{self.password}@" if self.password else ""
        return f"redis://{secret}127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start it (again, on the same port: what a restart of the service does)."""
        assert REDIS_SERVER is not None
        command = [
            REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder),
            "--save", "3600 1" if self.persistent else "", "--appendonly", "no", "--protected-mode", "yes",
        ]  # fmt: skip
        if self.password:
            command += ["--requirepass", self.password]
        with (self.folder / "redis.log").open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _accepts(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"redis-server did not start; see {self.folder / 'redis.log'}")
            time.sleep(0.02)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@contextlib.contextmanager
def redis_server(
    folder: Path, password: str | None = None, *, persistent: bool = False
) -> Iterator[RedisServer]:
    folder.mkdir(parents=True, exist_ok=True)
    server = RedisServer(folder, free_port(), password, persistent=persistent)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
            connection.sendall(b"PING\r\n")
            reply = connection.recv(64)
            return reply.startswith((b"+PONG", b"-NOAUTH"))
    except OSError:
        return False
