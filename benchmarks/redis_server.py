"""A throwaway `redis-server` for the benchmarks of the shared state store."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.targets import free_port
from benchmarks.wire import STARTUP_SECONDS


@contextmanager
def redis_server(folder: Path, program: str | None) -> Iterator[str | None]:
    """A `redis-server` on a free loopback port, nothing saved; None without one."""
    if program is None:
        yield None
        return
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    command = [program, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder)]
    command += ["--save", "", "--appendonly", "no"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _accepts(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.02)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait()


def flush_redis(url: str) -> None:
    """Empty the Redis server: a round starts from an empty store (the task store keeps
    at most 1,000 tasks; a round of the tasks benchmark makes 420)."""
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(b"FLUSHALL\r\n")
        if not connection.recv(64).startswith(b"+OK"):
            raise RuntimeError("redis-server did not empty")


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(64).startswith(b"+PONG")
    except OSError:
        return False
