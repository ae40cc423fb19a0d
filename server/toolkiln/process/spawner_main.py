"""The spawner: a small long-lived process that starts every tool process of one server
and makes sure none outlives its call, nor the server (Linux).

Run as a script by a bare interpreter (`python -I -S spawner_main.py FD`): it imports
only the standard library; `spawner.py` is the server's side. FD is a stream socket to
the server, on which requests and answers go both ways as `spawner_wire.py` frames them,
many at once: a start is answered once its exec is done, other requests meanwhile.

- The spawner is a child subreaper, and so is every process it starts: each starts as
  the helper (`spawner_helper.py`, by posix_spawn: vfork and exec, no page tables copied),
  which sets the flag and execs the program; exec keeps it. So a process that
  double-forks, leaves its session or empties its environment stays a descendant of its
  call's main process while that lives, then comes to the spawner.
- When a main process exits, its group is killed at once (its zombie still holds the
  group's id), then every child of the spawner that is not a main process still tracked:
  those are what ended calls left behind. They are the spawner's children, unreaped, so
  no pid can have been reused. Then the main process is reaped and its exit status sent
  to the server unasked. A signal the server asks for reaches only a main process not yet
  reaped: the spawner sends it, and knows which those are.
- With each start's answer comes a pidfd of the main process (opened while it is an
  unreaped child here): the server's own hold on it, should the spawner be killed.
- When the server dies, however it dies (SIGKILL too), its end of the socket closes:
  the spawner kills every process it started and everything they left, then exits.
"""

import ctypes
import os
import signal
import socket
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run as a script, by path
from readiness import readable  # type: ignore[import-not-found]
from spawner_helper import load_helpers  # type: ignore[import-not-found]
from spawner_reap import children, exited, kill, program_path, reap, set_limits, signal_group  # type: ignore[import-not-found]
from spawner_wire import Inbox, send  # type: ignore[import-not-found]

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
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server is gone
    finally:
        spawner.kill_everything()


class Spawner:
    def __init__(self, channel: socket.socket, wakeup: int) -> None:
        self.channel = channel
        self.wakeup = wakeup
        self.inbox = Inbox()
        self.running: set[int] = set()  # main processes not yet exited
        self.starting: dict[int, tuple[int, int]] = {}  # report pipe -> request id, helper pid
        self.spared: set[int] = set()  # children that are neither, and no stray (a runner's ready cell)
        self.helpers = load_helpers()  # its path, without and with a stop for setting rlimits

    def serve(self) -> None:
        """The one loop, the resident's too (`watched`, `ready`, `idle` are its own): requests
        as they come, starts answered as their execs end, exits said as they happen."""
        while True:
            watched = self.watched()
            try:
                ready = readable(
                    [self.channel.fileno(), self.wakeup, *self.starting, *watched], self.idle_seconds()
                )
            except InterruptedError:
                continue
            if not ready:
                self.idle()
                continue
            for fd in ready:
                if fd in self.starting:
                    self.started(fd)
                elif fd in watched:
                    self.ready(fd)
            if self.wakeup in ready:
                os.read(self.wakeup, 512)
                self.check_children()
            if self.channel.fileno() in ready and not self.receive():
                return  # the server is gone

    def watched(self) -> "list[int]":
        return []

    def ready(self, fd: int) -> None:
        """`fd` of `watched` is ready."""

    def idle_seconds(self) -> "float | None":
        return None

    def idle(self) -> None:
        """No request for `idle_seconds`."""

    def receive(self) -> bool:
        """Answer every request read; False when the server is gone."""
        if not self.inbox.read(self.channel):
            return False
        for request, fds in self.inbox.messages():
            self.answer(request, fds)
        return True

    def answer(self, request: "tuple[Any, ...]", fds: "list[int]") -> None:
        ident = request[0]
        try:
            answer = self.answer_one(ident, request[1:], fds)
        except OSError as error:  # posix_spawn failing (EAGAIN, E2BIG): the server says so, we go on
            answer = ("error", error.errno or 0, f"spawner {error.strerror or error}")
        except ValueError as error:  # a NUL character in argv or env, a "=" in a name
            answer = ("error", 0, f"value {error}")
        finally:
            for fd in fds:
                os.close(fd)
        if answer is not None and ident:
            self.say(ident, answer)

    def say(self, ident: int, answer: "tuple[Any, ...]", fds: "list[int] | tuple[int, ...]" = ()) -> None:
        send(self.channel, (ident, *answer), fds)

    def answer_one(
        self, ident: int, request: "tuple[Any, ...]", fds: "list[int]"
    ) -> "tuple[Any, ...] | None":
        """The answer to `request`, or None when it comes later (a start's)."""
        kind = request[0]
        if kind == "hello":
            return ("ok", self.helpers is not None)
        if kind == "spawn":
            started = self.start(request[1:], fds)
            if isinstance(started, tuple):
                return started
            self.starting[started[0]] = (ident, started[1])
            return None
        if kind == "signal":
            pid, signum = request[1], request[2]
            if pid in self.running:
                signal_group(pid, signum)
            return ("ok",)
        return ("error", 0, f"unknown request {kind!r}")

    def start(self, request: "tuple[Any, ...]", fds: "list[int]") -> "list[int] | tuple[Any, ...]":
        """Start the helper (vfork and exec: cheap), which makes itself a subreaper and
        execs the program: its report pipe and pid (closed when the exec is done, or
        saying why it failed); or the answer why it could not start."""
        argv, env, cwd, limits = request
        assert self.helpers is not None
        if cwd is not None:
            try:
                os.chdir(cwd)
            except OSError as error:
                return ("error", error.errno or 0, f"cwd {error.strerror}")
        try:
            path = program_path(argv[0], env)
            if isinstance(path, int):
                return ("error", path, "exec")
            report_read, report_write = os.pipe2(os.O_CLOEXEC)
            try:
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
            except BaseException:
                os.close(report_read)
                raise
            finally:
                os.close(report_write)
        finally:
            os.chdir("/")
        if limits and (problem := set_limits(pid, limits)) is not None:
            os.close(report_read)
            return ("error", 0, f"limits {problem}")  # it never ran
        return [report_read, pid]

    def started(self, report: int) -> None:
        """A start's exec is done, or failed: its answer, with a pidfd of the main process."""
        ident, pid = self.starting.pop(report)
        try:
            said = os.read(report, 64)
        finally:
            os.close(report)
        if said:  # exec failed: the helper exits, reap it
            os.waitpid(pid, 0)
            self.not_started(pid)
            self.say(ident, ("error", int.from_bytes(said[:4], "little", signed=True), "exec"))
            return
        self.running.add(pid)
        pidfd = os.pidfd_open(pid)
        try:
            self.say(ident, ("ok", pid), [pidfd])
        finally:
            os.close(pidfd)
        self.check_children([pid])  # it may have exited already, its SIGCHLD taken meanwhile

    def not_started(self, pid: int) -> None:
        """The exec of start `pid` failed (nothing ran)."""

    def check_children(self, pids: "list[int] | None" = None) -> None:
        """Main processes that exited (of `pids`, or all): their groups killed; then
        whatever ended calls left; then each is reaped and its exit said to the server."""
        ended = [pid for pid in (self.running if pids is None else pids) if exited(pid)]
        for pid in ended:
            self.running.discard(pid)
            signal_group(pid, signal.SIGKILL)  # a zombie leader keeps its group's id
        if pids is None or ended:
            self.kill_left_behind(ended)
        for pid in ended:
            try:
                _, status = os.waitpid(pid, 0)
                code = os.waitstatus_to_exitcode(status)
            except ChildProcessError:
                code = -signal.SIGKILL
            self.exited(pid, code)

    def exited(self, pid: int, code: int) -> None:
        """Main process `pid` has exited with `code`, and is reaped: the server is told."""
        self.say(0, ("exit", pid, code))

    def kill_left_behind(self, ended: "list[int] | None" = None) -> None:
        """SIGKILL and reap every child that is not a tracked main process (nor one of
        `ended`, reaped next), generation by generation: a killed process's own children
        come to us in turn. One stuck where SIGKILL waits (uninterruptible I/O) holds the
        spawner at most `STUCK_SECONDS`; the next check takes it up again."""
        deadline = time.monotonic() + STUCK_SECONDS
        kept = self.running | self.spared | set(ended or ()) | {pid for _, pid in self.starting.values()}
        while strays := children() - kept:
            killed = {pid for pid in strays if kill(pid)}  # not one that became another user's (setuid)
            if not killed or not reap(killed, deadline - time.monotonic()):
                return

    def kill_everything(self) -> None:
        for pid in self.running | {pid for _, pid in self.starting.values()}:
            signal_group(pid, signal.SIGKILL)
            kill(pid)
        self.running.clear()
        self.starting.clear()
        self.spared.clear()
        self.kill_left_behind()


if __name__ == "__main__":
    main()
