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

import ctypes
import errno
import os
import signal
import socket
import struct
import sys

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWPID = 0x20000, 0x08000000, 0x40000000, 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 0x4000, 0x40000
PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 4, 24, 47, 4
_SYS_CAPSET, _SYS_OPEN_TREE, _SYS_MOVE_MOUNT = 126, 428, 429  # x86-64
OPEN_TREE_CLONE, AT_RECURSIVE, MOVE_MOUNT_F_EMPTY_PATH, AT_FDCWD = 1, 0x8000, 4, -100
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 1
_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> int:
    if result < 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")
    return result


def make_cell(private: list[str], network: bool, keep: list[int]) -> tuple[int, socket.socket]:
    """Fork a keeper (and its init), ready for one call; its pid and the socket to its init."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = os.fork()
    if pid == 0:  # the keeper
        code = 127
        try:
            ours.close()
            code = _keep(theirs, private, network, keep)
        except BaseException as error:  # noqa: BLE001  (a forked child never returns into the resident)
            with _quiet():
                theirs.sendall(_pack(("error", getattr(error, "errno", 0) or 0, f"cell {error}")))
        finally:
            os._exit(code)
    theirs.close()
    return pid, ours


def _keep(link: socket.socket, private: list[str], network: bool, keep: list[int]) -> int:
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # SIGTERM, SIGINT, SIGHUP stay ignored
    _close_all_but([link.fileno(), *keep])
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):  # the resident's channel to the server: never the call's
        os.dup2(devnull, fd)
    os.close(devnull)
    os.setsid()  # the call's process group: the server signals it
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | (0 if network else CLONE_NEWNET)), "unshare")
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount private")
    kept = [(path, _clone(path)) for path in _mounts_inside(private)]
    for folder in [*private, "/dev/shm"]:
        if os.path.isdir(folder):
            _check(_libc.mount(b"tmpfs", folder.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, None), f"tmpfs {folder}")
    for path, tree in kept:  # what the profile showed inside them, shown again
        if tree >= 0:
            _put_back(path, tree)
    if not network:
        _loopback_up()
    init = os.fork()
    if init == 0:
        code = 127
        try:
            code = _init(link, keep)
        finally:
            os._exit(code)
    link.close()
    while True:
        try:
            _, status = os.waitpid(init, 0)
            break
        except InterruptedError:
            continue
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


def _init(link: socket.socket, helpers: list[int]) -> int:
    """PID 1 of the call: mount its /proc, drop every capability, wait for the call, start
    it (as PID 2, through the helper: a subreaper, exec errors reported), wait for it."""
    _check(_libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None), "mount /proc")
    _drop_capabilities()
    request = _receive(link)
    if request is None:
        return 0  # the resident has gone, or dropped this cell
    (_, argv, env, cwd, limits), fds = request
    try:
        pid = _start(argv, env, cwd, limits, fds, helpers)
    except OSError as error:
        link.sendall(_pack(("error", error.errno or 0, str(error.strerror or error))))
        return 127
    finally:
        for fd in fds:
            os.close(fd)
    link.sendall(_pack(("ok", pid)))
    link.close()
    for fd in helpers:
        os.close(fd)
    while True:  # as init, every orphan of the call comes here: reap them until the program ends
        try:
            done, status = os.waitpid(-1, 0)
        except InterruptedError:
            continue
        except ChildProcessError:
            return 127
        if done == pid:
            code = os.waitstatus_to_exitcode(status)
            return code if code >= 0 else 128 - code


def _start(argv: list[bytes], env: dict[bytes, bytes], cwd: bytes | None, limits: list, fds: list[int], helpers: list[int]) -> int:  # type: ignore[type-arg]
    from spawner_main import _DEFAULT_SIGNALS, _program_path, _set_limits  # type: ignore[import-not-found]

    if cwd is not None:
        os.chdir(cwd)
    path = _program_path(argv[0], env)
    if isinstance(path, int):
        raise OSError(path, os.strerror(path))
    report_read, report_write = os.pipe2(os.O_CLOEXEC)
    try:
        pid = os.posix_spawn(
            f"/proc/self/fd/{helpers[bool(limits)]}",
            [b"toolkiln-helper", path, *argv],
            env,
            file_actions=[(os.POSIX_SPAWN_DUP2, fd, number) for number, fd in enumerate([*fds, report_write])],
            setsigdef=_DEFAULT_SIGNALS,
        )
        os.close(report_write)
        report_write = -1
        if limits and (problem := _set_limits(pid, limits)) is not None:
            raise OSError(0, f"setting its limits failed: {problem}")
        report = b""
        while chunk := os.read(report_read, 64):
            report += chunk
    finally:
        for fd in (report_read, report_write):
            if fd >= 0:
                os.close(fd)
    if report:
        os.waitpid(pid, 0)
        number = int.from_bytes(report[:4], "little", signed=True)
        raise OSError(number, os.strerror(number))
    return pid


def _drop_capabilities() -> None:
    """No capability for the call, not even after an exec as root: the bounding set
    emptied, the ambient set cleared, then the rest (capset to nothing)."""
    last = int(open("/proc/sys/kernel/cap_last_cap").read())  # noqa: SIM115
    for capability in range(last + 1):
        _check(_libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0), "drop capability")
    _check(_libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clear ambient capabilities")
    header = struct.pack("Ii", 0x20080522, 0)
    data = bytes(24)  # two (effective, permitted, inheritable) triples, all empty
    _check(_libc.syscall(_SYS_CAPSET, header, data), "capset")
    _check(_libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "not dumpable")


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
    _check(_libc.syscall(_SYS_MOVE_MOUNT, tree, b"", AT_FDCWD, path.encode(), MOVE_MOUNT_F_EMPTY_PATH), f"move {path}")
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
            with _quiet():
                os.close(fd)


class _quiet:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return exc[0] is not None and issubclass(exc[0], OSError)  # type: ignore[arg-type]


HEADER = struct.Struct("!I")
MAX_FDS = 3


def _pack(message: object) -> bytes:
    import marshal

    body = marshal.dumps(message)
    return HEADER.pack(len(body)) + body


def _receive(link: socket.socket) -> tuple[tuple, list[int]] | None:  # type: ignore[type-arg]
    from spawner_main import _receive as receive

    return receive(link)  # type: ignore[no-any-return]


if __name__ == "__main__":
    sys.exit("cell.py is imported by runner_main.py")
