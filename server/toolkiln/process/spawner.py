"""The server's side of the spawner (`spawner_main.py`): started once per process, on the
first tool process, it starts every one after that; `SpawnedProcess` is what the rest of
`process` holds of each, as it would hold a `subprocess.Popen`.

Each start is a fork of the small spawner, not of this (big) process, so containment
costs nothing per call over a plain Popen. The spawner is Linux only (a child subreaper,
pidfds, /proc); elsewhere, or when it cannot start, `spawner()` is None and `spawn.py`
starts processes itself.
"""

from __future__ import annotations

import array
import contextlib
import logging
import marshal
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any, TypeAlias, cast

logger = logging.getLogger(__name__)

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
            return None if self.process is None else cast(SpawnedProcess, self.process).open_pidfd()
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


class SpawnedProcess:
    """A process the spawner started, as `subprocess.Popen` would show it: pid, pipes,
    `poll`, `wait`, `returncode`; and `signal_group`, which the spawner carries out only
    while its main process is there. The spawner reaps it only when `poll` asks, so while
    `returncode` is None its pid cannot have been reused: a pidfd opened then is its own."""

    def __init__(
        self, spawner: Spawner, pid: int, stdin: int | None, stdout: int | None, stderr: int | None,
        pidfd: int | None = None,
    ) -> None:  # fmt: skip
        self._spawner = spawner
        # Started by a runner (`runners.py`): `pid` is in the runner's PID namespace, its
        # pidfd says which process it is here; the runner is asked about it by `ref`.
        self._pidfd = pidfd
        self.ref = pid
        self.pid = pid if pidfd is None else _pid_of(pidfd)
        self.stdin: IO[bytes] | None = None if stdin is None else open(stdin, "wb", buffering=0)  # noqa: SIM115
        self.stdout: IO[bytes] | None = None if stdout is None else open(stdout, "rb", buffering=0)  # noqa: SIM115
        self.stderr: IO[bytes] | None = None if stderr is None else open(stderr, "rb", buffering=0)  # noqa: SIM115
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                answer = self._spawner.request(("status", self.ref))
            except SpawnerGone:
                answer = ("ok", -signal.SIGKILL)  # it killed what it held as it went
            if answer[1] is not None:
                self.returncode = cast(int, answer[1])
                if self._pidfd is not None:
                    os.close(self._pidfd)
                    self._pidfd = None
        return self.returncode

    def spawner_pidfd(self) -> int | None:
        """A pidfd of the spawner (or runner) that started it, or None (the caller closes it)."""
        return self._spawner.open_pidfd()

    def lost_spawner(self, pidfd: int) -> None:
        """Its spawner died under it: end the call now, killed, and say so. A runner's
        call died with the runner's namespaces; a spawner's main process still runs, not
        reaped by anyone that would reuse its pid while its pidfd (`pidfd`) is open: it and,
        while it lives, its group go."""
        if self.returncode is not None:
            return
        logger.error(
            "the %s that started process %d was killed (a tool running as the same user can): "
            "the call is ended; the next one starts a new one",
            "spawner" if self._pidfd is None else "confined runner", self.pid,
        )  # fmt: skip
        self._spawner.gone = True
        if self._pidfd is None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                if not select.select([pidfd], [], [], 0)[0]:  # still there: its group is its own
                    os.killpg(self.pid, signal.SIGKILL)
        self.returncode = -signal.SIGKILL

    def open_pidfd(self) -> int:
        """A pidfd of the main process (the caller closes it); only while it is not reaped."""
        return os.pidfd_open(self.pid) if self._pidfd is None else os.dup(self._pidfd)

    def wait(self) -> int:
        if self.poll() is None:
            # The spawner reaps it only when asked (poll): until then its pid is its own.
            pidfd = self.open_pidfd()
            try:
                while self.poll() is None:
                    select.select([pidfd], [], [])
            finally:
                os.close(pidfd)
        assert self.returncode is not None
        return self.returncode

    def signal_group(self, signum: int) -> None:
        if self.returncode is None:
            try:
                self._spawner.request(("signal", self.ref, int(signum)))
            except SpawnerGone:  # killed under it: the group is ours to signal (init reaps it now)
                if self._pidfd is None:  # a runner's call ended with the runner's namespaces
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(self.pid, signum)


def _pid_of(pidfd: int) -> int:
    """The pid, in this process's PID namespace, of the process `pidfd` refers to."""
    with open(f"/proc/self/fdinfo/{pidfd}") as info:
        for line in info:
            if line.startswith("Pid:"):
                return int(line.split()[1])
    raise OSError(0, "no pid for a pidfd")


# What `process` holds of a running process: started by the spawner, or by Popen without one.
Child: TypeAlias = "subprocess.Popen[bytes] | SpawnedProcess"
_spawner: Spawner | None = None
_spawner_lock = threading.Lock()


def _pidfds_work() -> bool:
    try:
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, OSError):  # not Linux, or before 5.3
        return False
    return True


# Why there is no spawner here, once known (None: there is one, or it is yet to start).
_problem: str | None = (
    "it needs Linux" if not sys.platform.startswith("linux")
    else None if _pidfds_work() else "it needs pidfds (Linux 5.3)"
)  # fmt: skip


def spawner() -> Spawner | None:
    """This process's spawner, started on first use; None where there can be none."""
    global _spawner, _problem
    if _spawner is not None and not _spawner.gone:
        return _spawner
    if _problem is not None:
        return None
    with _spawner_lock:
        if _spawner is None or _spawner.gone:
            if _spawner is not None:  # killed: close our end and reap it
                _spawner.stop()
            try:
                _spawner = Spawner()
            except (OSError, SpawnerGone) as error:
                _problem = f"it cannot start: {error.strerror if isinstance(error, OSError) else error}"
                logger.warning("no spawner (%s): a process that leaves its call may outlive it", _problem)
                return None
    return _spawner


def _forget_in_child() -> None:
    """A forked copy of this process (a server that forks its workers) starts its own
    spawner: the socket is the parent's, and a stream shared by two askers garbles both."""
    global _spawner, _spawner_lock
    _spawner_lock = threading.Lock()  # another thread may have held it at the fork
    if _spawner is not None:
        with contextlib.suppress(OSError):
            _spawner.channel.close()  # our copies only: the parent's stay open
            os.close(_spawner.devnull)
        _spawner = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def stop_spawner() -> None:
    """Stop the spawner (it kills every process it still holds); a new one starts on next use."""
    global _spawner
    with _spawner_lock:
        if _spawner is not None:
            _spawner.stop()
            _spawner = None


def spawn(
    chosen: Spawner,
    argv: Sequence[str],
    *,
    piped_stdin: bool,
    cwd: str | None,
    env: Mapping[str, str],
    limits: Sequence[tuple[int, int, int]],
) -> SpawnedProcess:
    """Start `argv` through `chosen`: OSError as Popen raises it (errno, strerror);
    ValueError for a NUL character."""
    encoded_argv = [os.fsencode(arg) for arg in argv]
    encoded_env = {os.fsencode(key): os.fsencode(value) for key, value in env.items()}
    if any(b"\0" in arg for arg in encoded_argv) or any(
        b"\0" in key or b"=" in key or b"\0" in value for key, value in encoded_env.items()
    ):
        raise ValueError("embedded null byte")
    pipes = [os.pipe2(os.O_CLOEXEC) for _ in range(3 if piped_stdin else 2)]
    if piped_stdin:
        (stdin_read, stdin_write), (stdout_read, stdout_write), (stderr_read, stderr_write) = pipes
        theirs = [stdin_read, stdout_write, stderr_write]
    else:
        (stdout_read, stdout_write), (stderr_read, stderr_write) = pipes
        stdin_write = None
        theirs = [chosen.devnull, stdout_write, stderr_write]
    ours = [fd for fd in (stdin_write, stdout_read, stderr_read) if fd is not None]
    try:
        answer, received = chosen.request_fds(
            ("spawn", encoded_argv, encoded_env, None if cwd is None else os.fsencode(cwd), list(limits)),
            theirs,
        )
    except BaseException:
        for fd in ours:
            os.close(fd)
        raise
    finally:
        for fd in theirs:
            if fd != chosen.devnull:
                os.close(fd)
    if answer[0] != "ok":
        for fd in [*ours, *received]:
            os.close(fd)
        number, message = cast(int, answer[1]), cast(str, answer[2])
        stage, _, reason = message.partition(" ")
        if stage == "limits":
            raise subprocess.SubprocessError(f"setting its limits failed: {reason}")
        raise OSError(number, os.strerror(number) if number else message)
    pidfd = received[0] if received else None
    for fd in received[1:]:
        os.close(fd)
    return SpawnedProcess(chosen, cast(int, answer[1]), stdin_write, stdout_read, stderr_read, pidfd)
