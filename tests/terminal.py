"""Run `toolkiln` as a real process on a real pseudo-terminal, of a chosen width."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import child_env

TOOLKILN = [sys.executable, "-m", "toolkiln"]


@dataclass(frozen=True)
class Seen:
    terminal: str  # what the terminal received (stderr, and stdout unless piped)
    stdout: str  # stdout when piped, else ""
    returncode: int


def run_on_terminal(
    args: list[str],
    *,
    cwd: Path,
    columns: int = 80,
    stdout_piped: bool = False,
    env: dict[str, str] | None = None,
) -> Seen:
    """`toolkiln ARGS` with stderr (and stdout, unless `stdout_piped`) on a pty `columns`
    wide; COLUMNS and NO_COLOR unset unless `env` sets them."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    environment = {k: v for k, v in child_env().items() if k not in ("COLUMNS", "NO_COLOR", "TERM")}
    environment.update({"TERM": "xterm", **(env or {})})
    process = subprocess.Popen(
        [*TOOLKILN, *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if stdout_piped else terminal,
        stderr=terminal,
        env=environment,
        cwd=cwd,
    )
    os.close(terminal)
    received = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # EIO: the last writer closed the terminal
            break
        if not chunk:
            break
        received += chunk
    os.close(controller)
    stdout, _ = process.communicate(timeout=60)
    return Seen(received.decode().replace("\r\n", "\n"), (stdout or b"").decode(), process.returncode)


def run_piped(
    args: list[str], *, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in child_env().items() if k not in ("COLUMNS", "NO_COLOR")}
    return subprocess.run(
        [*TOOLKILN, *args],
        capture_output=True,
        text=True,
        env={**environment, **(env or {})},
        cwd=cwd,
        timeout=60,
    )
