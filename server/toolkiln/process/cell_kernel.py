"""The kernel calls a cell (`cell.py`) is made with: namespaces entered and left,
capabilities dropped, mount trees cloned and moved (open_tree, move_mount), the loopback
brought up (Linux x86-64; standard library only: it runs in the resident)."""

import contextlib
import ctypes
import os
import socket
import struct
import sys

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWPID = 0x20000, 0x08000000, 0x40000000, 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 0x4000, 0x40000
PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 4, 24, 47, 4
_SYS_CAPGET, _SYS_CAPSET, _SYS_OPEN_TREE, _SYS_MOVE_MOUNT = 125, 126, 428, 429  # x86-64
OPEN_TREE_CLONE, AT_RECURSIVE, MOVE_MOUNT_F_EMPTY_PATH, AT_FDCWD = 1, 0x8000, 4, -100
AT_EMPTY_PATH, MNT_DETACH = 0x1000, 2
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 1
libc = ctypes.CDLL(None, use_errno=True)


def check(result: int, what: str) -> int:
    if result < 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")
    return result


def clone_unfollowed(path: str) -> int:
    """`clone_tree`, the path walked one folder at a time, never through a symlink; -1 when it cannot be."""
    fd = os.open("/", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in [part for part in path.split("/") if part]:
            inner = os.open(part, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = inner
        flags = OPEN_TREE_CLONE | AT_RECURSIVE | AT_EMPTY_PATH | os.O_CLOEXEC
        result = libc.syscall(_SYS_OPEN_TREE, fd, b"", flags)
        return result if result >= 0 else -1
    except OSError:
        return -1
    finally:
        os.close(fd)


def enter(target: int, network: bool) -> None:
    """Move this process (its children to come) into the namespaces of pidfd `target`:
    mount, PID (for children), IPC, and network without network."""
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | (0 if network else CLONE_NEWNET)
    check(libc.setns(target, flags), "enter a cell")


def home_namespaces(network: bool) -> list[tuple[int, int]]:
    """This process's own namespaces, as fds, to come back to with `leave`."""
    kinds = [("mnt", CLONE_NEWNS), ("pid", CLONE_NEWPID), ("ipc", CLONE_NEWIPC)]
    if not network:
        kinds.append(("net", CLONE_NEWNET))
    return [(os.open(f"/proc/self/ns/{name}", os.O_RDONLY | os.O_CLOEXEC), flag) for name, flag in kinds]


def leave(home: list[tuple[int, int]]) -> None:
    for fd, flag in home:
        check(libc.setns(fd, flag), "leave a cell")
    os.chdir("/")


def drop_inherited_capabilities() -> None:
    """Keep this process's capabilities, but let no program it (or a child) runs have one,
    not even as root: the bounding set emptied, the inheritable and ambient sets cleared."""
    last = int(open("/proc/sys/kernel/cap_last_cap").read())  # noqa: SIM115
    for capability in range(last + 1):
        check(libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0), "drop capability")
    check(libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clear ambient capabilities")
    header = struct.pack("Ii", 0x20080522, 0)
    data = ctypes.create_string_buffer(24)
    check(libc.syscall(_SYS_CAPGET, header, data), "capget")
    effective0, permitted0, _, effective1, permitted1, _ = struct.unpack("6I", data.raw)
    kept = struct.pack("6I", effective0, permitted0, 0, effective1, permitted1, 0)
    check(libc.syscall(_SYS_CAPSET, bytes(header), kept), "capset")


def mounts_inside(folders: list[str]) -> list[str]:
    """The outermost mount points strictly inside `folders` (what bubblewrap showed there)."""
    prefixes = tuple(folder.rstrip("/") + "/" for folder in folders)
    quick = tuple(os.fsencode(prefix) for prefix in prefixes)
    with open("/proc/self/mountinfo", "rb") as listing:
        lines = listing.read().splitlines()
    inside = []
    for line in lines:  # at every call's end (`cell._empty`): most lines set aside unparsed
        raw = line.split(b" ", 5)[4]
        if b"\\" in raw or raw.startswith(quick):  # a path with no escape in it is itself
            point = os.fsdecode(_unescape(raw))
            if point.startswith(prefixes):
                inside.append(point)
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


def clone_tree(path: str) -> int:
    """A detached copy of the mounts at `path`, or -1 when there is none (a failed -try bind)."""
    flags = OPEN_TREE_CLONE | AT_RECURSIVE | os.O_CLOEXEC
    result = libc.syscall(_SYS_OPEN_TREE, AT_FDCWD, path.encode(), flags)
    return result if result >= 0 else -1


def put_back(path: str, tree: int) -> None:
    if os.path.isdir(f"/proc/self/fd/{tree}"):
        os.makedirs(path, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o600))
    check(
        libc.syscall(_SYS_MOVE_MOUNT, tree, b"", AT_FDCWD, path.encode(), MOVE_MOUNT_F_EMPTY_PATH),
        f"move {path}",
    )
    os.close(tree)


def loopback_up() -> None:
    import fcntl

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(probe, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(probe, _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | _IFF_UP))


def close_all_but(keep: list[int]) -> None:
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2 and fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)


if __name__ == "__main__":
    sys.exit("cell_kernel.py is imported by cell.py")
