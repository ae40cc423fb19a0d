"""The channel to a spawner (`spawner_main.py`) or a runner's resident (`runner_main.py`):
length-prefixed `marshal` requests, answered in turn, fds passed both ways by SCM_RIGHTS."""

from __future__ import annotations

import array
import contextlib
import marshal
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

_HEADER = struct.Struct("!I")
_MAIN = Path(__file__).with_name("spawner_main.py")


class SpawnerGone(Exception):
    """The spawner stopped answering (it was killed). `unsent`: the request never reached
    it (it was gone before), so asking a new spawner cannot do the same thing twice."""

    def __init__(self, message: str, *, unsent: bool = True) -> None:
        super().__init__(message)
        self.unsent = unsent


class Spawner:
    """One spawner process and the socket to it; requests are answered in turn."""

    def __init__(self, channel: socket.socket | None = None, process: Any = None) -> None:
        """A new spawner process; or (`runners.py`) one already started, reached by `channel`."""
        if channel is None:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            with theirs:
                process = subprocess.Popen(
                    [sys.executable, "-I", "-S", str(_MAIN), str(theirs.fileno())],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    pass_fds=[theirs.fileno()],
                    env={},  # each process gets its environment with its request; the spawner needs none
                    start_new_session=True,  # a terminal's Ctrl-C is the server's, not the spawner's
                )
            channel = ours
        self.process = process
        self.channel = channel
        self.lock = threading.Lock()
        self.devnull = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        self.gone = False
        # A runner's (`runners.py`): whatever it started dies with it, so a request it may
        # have received before it died can be asked of a new one.
        self.replayable = process is not None and not isinstance(process, subprocess.Popen)
        if self.request(("hello",)) != ("ok", True):
            self.stop()
            raise OSError(0, "its helper cannot run here (not x86-64, or memory files may not be executed)")

    def request(self, message: tuple[object, ...], fds: Sequence[int] = ()) -> tuple[object, ...]:
        answer, received = self.request_fds(message, fds)
        for fd in received:
            os.close(fd)
        return answer

    def request_fds(
        self, message: tuple[object, ...], fds: Sequence[int] = ()
    ) -> tuple[tuple[object, ...], list[int]]:
        """The answer to `message` (sent with `fds`), and the fds that came with it."""
        body = marshal.dumps(cast(Any, message))
        received: list[int] = []
        with self.lock:
            if self.gone:
                raise SpawnerGone("the spawner has gone")
            sent = 0
            try:
                packet = _HEADER.pack(len(body)) + body
                ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
                sent = self.channel.sendmsg([packet], ancillary)
                if sent < len(packet):
                    self.channel.sendall(packet[sent:])
                header = self._read(_HEADER.size, received)
                answer = marshal.loads(self._read(_HEADER.unpack(header)[0], received))
            except (OSError, EOFError, ValueError) as error:
                self.gone = True
                for fd in received:
                    os.close(fd)
                raise SpawnerGone(f"the spawner has gone ({error})", unsent=sent == 0) from None
        return cast(tuple[object, ...], answer), received

    def _read(self, size: int, received: list[int]) -> bytes:
        data = bytearray()
        while len(data) < size:
            chunk, ancillary, _, _ = self.channel.recvmsg(
                size - len(data), socket.CMSG_SPACE(4), socket.MSG_CMSG_CLOEXEC
            )
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    received += array.array("i", payload[: len(payload) // 4 * 4]).tolist()
            if not chunk:
                raise EOFError("end of stream")
            data += chunk
        return bytes(data)

    def open_pidfd(self) -> int | None:
        """A pidfd of the spawner's process (the caller closes it), or None when it has none."""
        try:
            if isinstance(self.process, subprocess.Popen):
                return None if self.process.returncode is not None else os.pidfd_open(self.process.pid)
            return None if self.process is None else int(self.process.open_pidfd())  # a runner's bubblewrap
        except OSError:
            return None

    def stop(self) -> None:
        """Close the socket: the spawner kills what it still holds and exits."""
        with self.lock:
            self.gone = True
            self.channel.close()
            if self.devnull >= 0:
                os.close(self.devnull)
                self.devnull = -1
        if isinstance(self.process, subprocess.Popen):
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)
        elif self.process is not None:  # a runner's bubblewrap, started by the spawner
            self.process.signal_group(signal.SIGKILL)  # its resident has killed what it held
            self.process.wait()
