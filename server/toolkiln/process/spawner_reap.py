"""What the spawner (`spawner_main.py`) does to processes besides starting them: finding a
program on PATH, setting rlimits on a stopped helper, signalling, listing and reaping its
children. Standard library only: it runs in the spawner's bare interpreter."""

import contextlib
import errno
import os
import resource
import signal
import time

from readiness import readable  # type: ignore[import-not-found]


def program_path(program: "str | bytes", env: "dict[str, str] | dict[bytes, bytes]") -> "bytes | int":
    """Where execvpe would find `program` (searching env's PATH), or the errno it would fail with."""
    program = os.fsencode(program)
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


def set_limits(pid: int, limits: "list[tuple[int, int, int]]") -> "str | None":
    """Set rlimits on the helper, stopped before its exec, then let it go on; or, when a
    limit cannot be set, kill it (a tool never runs without the limits it was given)."""
    _, status = os.waitpid(pid, os.WUNTRACED)
    if not os.WIFSTOPPED(status):
        return "it ended before they were set"  # reaped by the wait above
    try:
        for which, soft, hard in limits:
            resource.prlimit(pid, which, (soft, hard))
    except (OSError, ValueError) as error:
        kill(pid)
        os.waitpid(pid, 0)
        return str(error)
    kill(pid, signal.SIGCONT)
    return None


def reap(pids: "set[int]", seconds: float) -> bool:
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
            ready = readable(list(pidfds), seconds)
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


def signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def kill(pid: int, signum: int = signal.SIGKILL) -> bool:
    """Signal `pid`; False when it may not be (it runs as another user now)."""
    try:
        os.kill(pid, signum)
    except PermissionError:
        return False
    except ProcessLookupError:
        pass
    return True


_listing: "tuple[int, int] | None" = None  # this process's pid, and its children's listing held open


def children() -> "set[int]":
    """The spawner's children (it has one thread). Read with os.pread on a file held open,
    not open(): this runs at every call's end, on the way to its exit being said, and a
    text file costs a buffer, a decoder and an isatty ioctl each time (~30 us of the
    spawner's), opening it a lookup through /proc and a close (~5 us more)."""
    global _listing
    if _listing is None or _listing[0] != os.getpid():  # held by this process, not one it forked from
        _listing = (
            os.getpid(),
            os.open(f"/proc/self/task/{os.getpid()}/children", os.O_RDONLY | os.O_CLOEXEC),
        )
    listing = b""
    while chunk := os.pread(_listing[1], 65536, len(listing)):  # from the start: listed afresh
        listing += chunk
    return {int(pid) for pid in listing.split()}


def exited(pid: int) -> bool:
    """Whether child `pid` has exited (left unreaped: its pid and group stay its own)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True
