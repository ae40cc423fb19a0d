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
import ctypes
import os
import select
import signal
import socket
import struct
import sys
import time

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWPID = 0x20000, 0x08000000, 0x40000000, 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 0x4000, 0x40000
PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 4, 24, 47, 4
_SYS_CAPGET, _SYS_CAPSET, _SYS_OPEN_TREE, _SYS_MOVE_MOUNT = 125, 126, 428, 429  # x86-64
OPEN_TREE_CLONE, AT_RECURSIVE, MOVE_MOUNT_F_EMPTY_PATH, AT_FDCWD = 1, 0x8000, 4, -100
AT_EMPTY_PATH, MNT_DETACH = 0x1000, 2
EMPTY_SECONDS = 2.0  # a cell whose processes are not all gone by then is ended instead
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 1
_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> int:
    if result < 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")
    return result


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
    _close_all_but([link.fileno()])
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):  # the resident's channel to the server: never a call's
        os.dup2(devnull, fd)
    os.close(devnull)
    os.setsid()  # out of the resident's group
    _check(
        _libc.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | (0 if network else CLONE_NEWNET)), "unshare"
    )
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount private")
    _fresh_folders(private, [(path, _clone(path)) for path in _mounts_inside(private)])
    if not network:
        _loopback_up()
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
            _check(
                _libc.mount(b"tmpfs", folder.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, None),
                f"tmpfs {folder}",
            )
    for path, tree in trees:
        if tree >= 0:
            _put_back(path, tree)


def _init(ready: int, link: socket.socket, private: list[str]) -> None:
    """PID 1 of a cell: its own /proc; it reaps the call's orphans, and when the resident
    says the call is over (b"C"), it empties the cell for the next call of the profile:
    every process in it killed (until none is left), a new mount and IPC namespace with
    fresh private folders. It answers b"R" (ready again), or exits (the kernel then kills
    what is left) when the cell cannot be emptied, and when the resident goes."""
    _check(_libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None), "mount /proc")
    _check(_libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "not dumpable")
    wakeup_read, wakeup_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wakeup_write, warn_on_full_buffer=False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    os.write(ready, b"R")
    os.close(ready)
    while True:
        _reap_all()
        try:
            readable, _, _ = select.select([link.fileno(), wakeup_read], [], [])
        except InterruptedError:
            continue
        if wakeup_read in readable:
            with contextlib.suppress(BlockingIOError):
                os.read(wakeup_read, 512)
        if link.fileno() in readable:
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
    trees = [(path, _clone_unfollowed(path)) for path in _mounts_inside(private)]
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWIPC), "unshare")
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount private")
    for folder in [*private, "/dev/shm"]:
        if os.path.isdir(folder):
            _check(_libc.umount2(folder.encode(), MNT_DETACH), f"unmount {folder}")
    _fresh_folders(private, trees)
    return True


def _clone_unfollowed(path: str) -> int:
    """`_clone`, the path walked one folder at a time, never through a symlink; -1 when it cannot be."""
    fd = os.open("/", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in [part for part in path.split("/") if part]:
            inner = os.open(part, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = inner
        flags = OPEN_TREE_CLONE | AT_RECURSIVE | AT_EMPTY_PATH | os.O_CLOEXEC
        result = _libc.syscall(_SYS_OPEN_TREE, fd, b"", flags)
        return result if result >= 0 else -1
    except OSError:
        return -1
    finally:
        os.close(fd)


def enter(target: int, network: bool) -> None:
    """Move this process (its children to come) into the namespaces of pidfd `target`:
    mount, PID (for children), IPC, and network without network."""
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | (0 if network else CLONE_NEWNET)
    _check(_libc.setns(target, flags), "enter a cell")


def home_namespaces(network: bool) -> list[tuple[int, int]]:
    """This process's own namespaces, as fds, to come back to with `leave`."""
    kinds = [("mnt", CLONE_NEWNS), ("pid", CLONE_NEWPID), ("ipc", CLONE_NEWIPC)]
    if not network:
        kinds.append(("net", CLONE_NEWNET))
    return [(os.open(f"/proc/self/ns/{name}", os.O_RDONLY | os.O_CLOEXEC), flag) for name, flag in kinds]


def leave(home: list[tuple[int, int]]) -> None:
    for fd, flag in home:
        _check(_libc.setns(fd, flag), "leave a cell")
    os.chdir("/")


def drop_inherited_capabilities() -> None:
    """Keep this process's capabilities, but let no program it (or a child) runs have one,
    not even as root: the bounding set emptied, the inheritable and ambient sets cleared."""
    last = int(open("/proc/sys/kernel/cap_last_cap").read())  # noqa: SIM115
    for capability in range(last + 1):
        _check(_libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0), "drop capability")
    _check(_libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clear ambient capabilities")
    header = struct.pack("Ii", 0x20080522, 0)
    data = ctypes.create_string_buffer(24)
    _check(_libc.syscall(_SYS_CAPGET, header, data), "capget")
    effective0, permitted0, _, effective1, permitted1, _ = struct.unpack("6I", data.raw)
    kept = struct.pack("6I", effective0, permitted0, 0, effective1, permitted1, 0)
    _check(_libc.syscall(_SYS_CAPSET, bytes(header), kept), "capset")


def _mounts_inside(folders: list[str]) -> list[str]:
    """The outermost mount points strictly inside `folders` (what bubblewrap showed there)."""
    points = []
    with open("/proc/self/mountinfo", "rb") as listing:
        for line in listing:
            raw = line.split()[4]
            points.append(os.fsdecode(_unescape(raw)))
    inside = [p for p in points if any(p.startswith(folder.rstrip("/") + "/") for folder in folders)]
    return sorted(
        {p for p in inside if not any(p != q and p.startswith(q.rstrip("/") + "/") for q in inside)}, key=len
    )


def _unescape(raw: bytes) -> bytes:
    out, index = bytearray(), 0
    while index < len(raw):
        if raw[index : index + 1] == b"\\" and raw[index + 1 : index + 4].isdigit():
            out.append(int(raw[index + 1 : index + 4], 8))
            index += 4
        else:
            out += raw[index : index + 1]
            index += 1
    return bytes(out)


def _clone(path: str) -> int:
    """A detached copy of the mounts at `path`, or -1 when there is none (a failed -try bind)."""
    flags = OPEN_TREE_CLONE | AT_RECURSIVE | os.O_CLOEXEC
    result = _libc.syscall(_SYS_OPEN_TREE, AT_FDCWD, path.encode(), flags)
    return result if result >= 0 else -1


def _put_back(path: str, tree: int) -> None:
    if os.path.isdir(f"/proc/self/fd/{tree}"):
        os.makedirs(path, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o600))
    _check(
        _libc.syscall(_SYS_MOVE_MOUNT, tree, b"", AT_FDCWD, path.encode(), MOVE_MOUNT_F_EMPTY_PATH),
        f"move {path}",
    )
    os.close(tree)


def _loopback_up() -> None:
    import fcntl

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(probe, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(probe, _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | _IFF_UP))


def _close_all_but(keep: list[int]) -> None:
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2 and fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)


if __name__ == "__main__":
    sys.exit("cell.py is imported by runner_main.py")
