"""A cell: the namespaces of one confined call, made inside a confinement profile's
long-lived bubblewrap (`runner_main.py`) before the call comes, so that starting the call
costs a message and an exec (Linux x86-64; standard library only: it runs in the resident).

    resident (the profile's namespaces, all capabilities there)
      `- keeper: a mount, PID and IPC namespace of its own (and network, without network)
           `- init, PID 1 of the call: a fresh /proc, /tmp, /var/tmp and /dev/shm;
              no capability left; it starts the call's program as PID 2, waits for it
              and exits with its status, and the kernel kills whatever is left in the call.

What one call cannot do to another of the same profile, nor to the resident: see them
(its own PID namespace, its own /proc), signal or ptrace them (not in its namespace;
init and the resident are not dumpable), share files in /tmp, /var/tmp or /dev/shm
(fresh for each call; the profile's other empty folders are read-only), reach them by
an abstract socket or SysV IPC (a network and IPC namespace of its own), or talk to the
resident (no socket of it is left open in the call). The keeper leads the call's process
group: the server's SIGTERM and SIGKILL reach the program (PID 2) as before.
"""

import contextlib
import os
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run by path, in the resident
from cell_kernel import (  # type: ignore[import-not-found]
    CLONE_NEWIPC,
    CLONE_NEWNET,
    CLONE_NEWNS,
    CLONE_NEWPID,
    MNT_DETACH,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_PRIVATE,
    MS_REC,
    PR_SET_DUMPABLE,
    check,
    clone_tree,
    clone_unfollowed,
    close_all_but,
    libc,
    loopback_up,
    mounts_inside,
    put_back,
)
from readiness import readable  # type: ignore[import-not-found]

EMPTY_SECONDS = 2.0  # a cell whose processes are not all gone by then is ended instead


def make_cell(private: list[str], network: bool) -> tuple[int, socket.socket]:
    """Fork a keeper, which makes a cell's namespaces and its init; the keeper's pid and a
    socket on which it says its init's pid once that init is ready (`cell_init`)."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = os.fork()
    if pid == 0:  # the keeper
        try:
            ours.close()
            _keep(theirs, private, network)
        finally:
            os._exit(0)
    theirs.close()
    return pid, ours


def cell_init(link: socket.socket) -> int:
    """The pid of a cell's init, once ready (`OSError` when the cell could not be made);
    `link` is then the init's: b"C" empties the cell, b"R" says it is ready again."""
    said = b""
    while len(said) < 4:
        chunk = link.recv(4 - len(said))
        if not chunk:
            raise OSError(0, "the cell could not be made")
        said += chunk
    return int(struct.unpack("!i", said)[0])


def _keep(link: socket.socket, private: list[str], network: bool) -> None:
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # SIGTERM, SIGINT, SIGHUP stay ignored
    close_all_but([link.fileno()])
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):  # the resident's channel to the server: never a call's
        os.dup2(devnull, fd)
    os.close(devnull)
    os.setsid()  # out of the resident's group
    check(
        libc.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | (0 if network else CLONE_NEWNET)), "unshare"
    )
    check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount private")
    _fresh_folders(private, [(path, clone_tree(path)) for path in mounts_inside(private)])
    if not network:
        loopback_up()
    ready_read, ready_write = os.pipe()
    init = os.fork()
    if init == 0:
        try:
            os.close(ready_read)
            _init(ready_write, link, private)
        finally:
            os._exit(0)
    os.close(ready_write)
    if os.read(ready_read, 1) == b"R":
        link.sendall(struct.pack("!i", init))
    link.close()
    while True:
        try:
            os.waitpid(init, 0)
            return
        except InterruptedError:
            continue


def _fresh_folders(private: list[str], trees: list[tuple[str, int]]) -> None:
    """A fresh, empty tmpfs on each private folder and /dev/shm, with `trees` (copies of
    what the profile showed inside them: detached mounts, or -1 for none) mounted again."""
    for folder in [*private, "/dev/shm"]:
        if os.path.isdir(folder):
            check(
                libc.mount(b"tmpfs", folder.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, None),
                f"tmpfs {folder}",
            )
    for path, tree in trees:
        if tree >= 0:
            put_back(path, tree)


def _init(ready: int, link: socket.socket, private: list[str]) -> None:
    """PID 1 of a cell: its own /proc; it reaps the call's orphans, and when the resident
    says the call is over (b"C"), it empties the cell for the next call of the profile:
    every process in it killed (until none is left), a new mount and IPC namespace with
    fresh private folders. It answers b"R" (ready again), or exits (the kernel then kills
    what is left) when the cell cannot be emptied, and when the resident goes."""
    check(libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None), "mount /proc")
    check(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "not dumpable")
    wakeup_read, wakeup_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wakeup_write, warn_on_full_buffer=False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    os.write(ready, b"R")
    os.close(ready)
    while True:
        _reap_all()
        try:
            ready_fds = readable([link.fileno(), wakeup_read])
        except InterruptedError:
            continue
        if wakeup_read in ready_fds:
            with contextlib.suppress(BlockingIOError):
                os.read(wakeup_read, 512)
        if link.fileno() in ready_fds:
            word = link.recv(1)
            if word != b"C" or not _empty(private):
                return
            link.sendall(b"R")


def _reap_all() -> None:
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                return
        except ChildProcessError:
            return
        except InterruptedError:
            continue


def _empty(private: list[str]) -> bool:
    """Kill every process of the cell but this one, until none is left (a fork racing the
    kill is killed at the next round); then a new mount and IPC namespace, fresh folders."""
    deadline = time.monotonic() + EMPTY_SECONDS
    while True:
        try:
            os.kill(-1, signal.SIGKILL)  # in a PID namespace: every process in it but its init
        except ProcessLookupError:
            break
        _reap_all()
        if time.monotonic() > deadline:
            return False
        time.sleep(0.0005)
    # Copies of what the profile showed in the private folders, reached without following
    # a link (the last call could write around them); then a new mount namespace.
    trees = [(path, clone_unfollowed(path)) for path in mounts_inside(private)]
    check(libc.unshare(CLONE_NEWNS | CLONE_NEWIPC), "unshare")
    check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount private")
    for folder in [*private, "/dev/shm"]:
        if os.path.isdir(folder):
            check(libc.umount2(folder.encode(), MNT_DETACH), f"unmount {folder}")
    _fresh_folders(private, trees)
    return True


if __name__ == "__main__":
    sys.exit("cell.py is imported by runner_main.py")
