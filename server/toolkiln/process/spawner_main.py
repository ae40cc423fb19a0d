"""The spawner: a small long-lived process that starts every tool process of one server
and makes sure none outlives its call, nor the server (Linux).

Run as a script by a bare interpreter (`python -I -S spawner_main.py FD`): it imports
only the standard library; `spawner.py` is the server's side. FD is a stream socket to
the server; each request is a length-prefixed `marshal` message, the pipes of a process
to start come with it as SCM_RIGHTS.

- The spawner is a child subreaper, and so is every process it starts: each starts as
  the helper (`spawner_helper.py`, by posix_spawn: vfork and exec, no page tables copied),
  which sets the flag and execs the program; exec keeps it. So a process that
  double-forks, leaves its session or empties its environment stays a descendant of its
  call's main process while that lives, then comes to the spawner.
- When a main process exits, its group is killed at once, and then every child of the
  spawner that is not a main process still tracked: those are what ended calls left
  behind. They are the spawner's children, unreaped, so no pid can have been reused.
- A main process stays a zombie until the server has asked for its exit status: until
  then its pid and group cannot be reused, so the server's signals cannot go astray.
- When the server dies, however it dies (SIGKILL too), its end of the socket closes:
  the spawner kills every process it started and everything they left, then exits.
"""

import contextlib
import ctypes
import errno
import marshal
import os
import resource
import select
import signal
import socket
import struct
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run as a script, by path
from spawner_helper import load_helpers  # type: ignore[import-not-found]

PR_SET_CHILD_SUBREAPER = 36
# Handled or ignored here; a program starts with them as the default.
_DEFAULT_SIGNALS = (
    signal.SIGPIPE,
    signal.SIGXFSZ,
    signal.SIGCHLD,
    signal.SIGTERM,
    signal.SIGINT,
    signal.SIGHUP,
)
HEADER = struct.Struct("!I")
MAX_FDS = 3
STUCK_SECONDS = 1.0
_libc = ctypes.CDLL(None, use_errno=True)


def main(kind: "type[Spawner] | None" = None, *arguments: object) -> None:
    channel = socket.socket(fileno=int(sys.argv[1]))
    channel.set_inheritable(False)
    if _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("spawner: cannot become a child subreaper")
    wakeup_read, wakeup_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wakeup_write, warn_on_full_buffer=False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    # A stop is the server's to make (SIGTERM to the group, a grace period): the spawner
    # goes when the server's end of its socket closes. So systemd's SIGTERM to every
    # process of a service, or a terminal's Ctrl-C, do not cut that short.
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    spawner = (kind or Spawner)(channel, wakeup_read, *arguments)
    try:
        spawner.serve()
    finally:
        spawner.kill_everything()


class Spawner:
    def __init__(self, channel: socket.socket, wakeup: int) -> None:
        self.channel = channel
        self.wakeup = wakeup
        self.running: set[int] = set()  # main processes not yet exited
        self.ended: set[int] = set()  # main processes exited, kept as zombies until asked
        self.spared: set[int] = set()  # children that are neither, and no stray (a runner's ready cell)
        self.helpers = load_helpers()  # its path, without and with a stop for setting rlimits

    def serve(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.channel.fileno(), self.wakeup], [], [])
            except InterruptedError:
                continue
            if self.wakeup in ready:
                os.read(self.wakeup, 512)
                self.check_children()
            if self.channel.fileno() in ready:
                request = self.receive()
                if request is None:
                    return  # the server is gone
                self.send(self.answer(*request))

    def receive(self) -> tuple[tuple[object, ...], list[int]] | None:
        return _receive(self.channel)

    def send(self, answer: object) -> None:
        _send(self.channel, answer)

    def answer(self, request: tuple[object, ...], fds: list[int]) -> object:
        try:
            return self.answer_one(request, fds)
        except OSError as error:  # posix_spawn failing (EAGAIN, E2BIG): the server says so, we go on
            return ("error", error.errno or 0, f"spawner {error.strerror or error}")
        finally:
            for fd in fds:
                os.close(fd)

    def answer_one(self, request: tuple[object, ...], fds: list[int]) -> object:
        kind = request[0]
        if kind == "hello":
            return ("ok", self.helpers is not None)
        if kind == "spawn":
            return self.spawn(request[1:], fds)
        if kind == "signal":
            pid, signum = request[1], request[2]
            assert isinstance(pid, int) and isinstance(signum, int)
            if pid in self.running:
                _signal_group(pid, signum)
            return ("ok",)
        if kind == "status":
            pid = request[1]
            assert isinstance(pid, int)
            return ("ok", self.status(pid))
        return ("error", 0, f"unknown request {kind!r}")

    def spawn(self, request: tuple[object, ...], fds: list[int]) -> object:
        """Start the helper (vfork and exec: cheap), which makes itself a subreaper and
        execs the program; wait until it has (its report pipe closes) or said why not."""
        argv, env, cwd, limits = request
        assert isinstance(argv, list) and isinstance(env, dict) and isinstance(limits, list)
        assert self.helpers is not None
        if cwd is not None:
            try:
                os.chdir(cwd)  # type: ignore[arg-type]
            except OSError as error:
                return ("error", error.errno or 0, f"cwd {error.strerror}")
        report_read, report_write = os.pipe2(os.O_CLOEXEC)
        try:
            path = _program_path(argv[0], env)
            if isinstance(path, int):
                return ("error", path, "exec")
            pid = os.posix_spawn(
                self.helpers[bool(limits)],
                [b"toolkiln-helper", path, *argv],
                env,
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, fd, number) for number, fd in enumerate([*fds, report_write])
                ],
                setsid=True,
                setsigdef=_DEFAULT_SIGNALS,
            )
            os.close(report_write)
            report_write = -1
            if limits and (problem := _set_limits(pid, limits)) is not None:
                return ("error", 0, f"limits {problem}")  # it never ran
            report = b""
            while chunk := os.read(report_read, 64):
                report += chunk
        finally:
            os.chdir("/")
            for fd in (report_read, report_write):
                if fd >= 0:
                    os.close(fd)
        if report:  # exec failed: the helper has exited, reap it
            os.waitpid(pid, 0)
            number = int.from_bytes(report[:4], "little", signed=True)
            return ("error", number, "exec")
        self.running.add(pid)
        return ("ok", pid)

    def status(self, pid: int) -> int | None:
        """The exit status of main process `pid` (reaping it), or None while it runs."""
        if pid in self.running:
            self.check_children()
        if pid not in self.ended:
            return None
        self.ended.discard(pid)
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status)

    def check_children(self) -> None:
        """Main processes that exited: their groups killed; then whatever ended calls left."""
        for pid in list(self.running):
            try:
                exited = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                exited = None
                self.running.discard(pid)
            if exited is not None:
                self.running.discard(pid)
                self.ended.add(pid)
                _signal_group(pid, signal.SIGKILL)  # a zombie leader keeps its group's id
        self.kill_left_behind()

    def kill_left_behind(self) -> None:
        """SIGKILL and reap every child that is not a tracked main process, generation by
        generation: a killed process's own children come to us in turn. One stuck where
        SIGKILL waits (uninterruptible I/O) holds the spawner at most `STUCK_SECONDS`; the
        next check takes it up again."""
        deadline = time.monotonic() + STUCK_SECONDS
        while strays := _children() - self.running - self.ended - self.spared:
            killed = {pid for pid in strays if _kill(pid)}  # not one that became another user's (setuid)
            if not killed or not _reap(killed, deadline - time.monotonic()):
                return

    def kill_everything(self) -> None:
        for pid in self.running | self.ended:
            _signal_group(pid, signal.SIGKILL)
            _kill(pid)
        self.running.clear()
        self.ended.clear()
        self.spared.clear()
        self.kill_left_behind()


def _receive(link: socket.socket) -> tuple[tuple[object, ...], list[int]] | None:
    """One length-prefixed marshal message and the fds that came with it; None at the end."""
    header, fds = b"", []
    while len(header) < HEADER.size:
        data, ancillary, _, _ = link.recvmsg(
            HEADER.size - len(header), socket.CMSG_SPACE(MAX_FDS * 4), socket.MSG_CMSG_CLOEXEC
        )
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds += list(struct.unpack(f"{len(payload) // 4}i", payload[: len(payload) // 4 * 4]))
        if not data:
            for fd in fds:
                os.close(fd)
            return None
        header += data
    (size,) = HEADER.unpack(header)
    body = bytearray()
    while len(body) < size:
        chunk = link.recv(size - len(body))
        if not chunk:
            return None
        body += chunk
    return marshal.loads(body), fds


def _send(link: socket.socket, message: Any) -> None:
    body = marshal.dumps(message)
    link.sendall(HEADER.pack(len(body)) + body)


def _program_path(program: bytes, env: dict[bytes, bytes]) -> bytes | int:
    """Where execvpe would find `program` (searching env's PATH), or the errno it would fail with."""
    if b"/" in program:
        return program
    denied = False
    for folder in os.get_exec_path(env):  # type: ignore[arg-type]
        candidate = os.path.join(os.fsencode(folder), program)
        if os.path.isfile(candidate):
            if os.access(candidate, os.X_OK):
                return candidate
            denied = True
    return errno.EACCES if denied else errno.ENOENT


def _set_limits(pid: int, limits: list[tuple[int, int, int]]) -> str | None:
    """Set rlimits on the helper, stopped before its exec, then let it go on; or, when a
    limit cannot be set, kill it (a tool never runs without the limits it was given)."""
    _, status = os.waitpid(pid, os.WUNTRACED)
    if not os.WIFSTOPPED(status):
        return "it ended before they were set"  # reaped by the wait above
    try:
        for which, soft, hard in limits:
            resource.prlimit(pid, which, (soft, hard))
    except (OSError, ValueError) as error:
        _kill(pid)
        os.waitpid(pid, 0)
        return str(error)
    _kill(pid, signal.SIGCONT)
    return None


def _reap(pids: set[int], seconds: float) -> bool:
    """Reap `pids` (our children, killed) as they exit, for up to `seconds`; whether all were."""
    pidfds = {}
    for pid in pids:
        try:
            pidfds[os.pidfd_open(pid)] = pid  # unreaped children of ours: the pid is theirs
        except OSError:  # out of fds: wait for it the plain way
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    try:
        while pidfds and seconds > 0:
            started = time.monotonic()
            ready, _, _ = select.select(list(pidfds), [], [], seconds)
            seconds -= time.monotonic() - started
            for fd in ready:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pidfds[fd], 0)
                os.close(fd)
                del pidfds[fd]
        return not pidfds
    finally:
        for fd in pidfds:
            os.close(fd)


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def _kill(pid: int, signum: int = signal.SIGKILL) -> bool:
    """Signal `pid`; False when it may not be (it runs as another user now)."""
    try:
        os.kill(pid, signum)
    except PermissionError:
        return False
    except ProcessLookupError:
        pass
    return True


def _children() -> set[int]:
    with open(f"/proc/self/task/{os.getpid()}/children") as listing:
        return {int(pid) for pid in listing.read().split()}


if __name__ == "__main__":
    main()
