"""Confinement: a process started inside bubblewrap (`bwrap`), Linux's unprivileged sandbox.

A confined process and everything it starts:
- see the filesystem read-only, but for the folders it may write (`writable`) and a
  private, empty /tmp, and without /run's sockets (`read_only`); or, not `read_only`,
  as the user sees it. Either way, folders it must not see (`hidden`, such as the
  server's state folder with its token) are empty, and `visible` ones are shown again
  inside those;
- reach no network unless `network` is set (a namespace of its own with only a loopback);
- live in a PID namespace of their own, with no capabilities: when the main process
  exits, or the server dies however it dies (`--die-with-parent`), the kernel kills
  every process left in it. No descendant can outlive its call.

The process stays in the group the server made for it, so the group's SIGTERM, grace
period and SIGKILL still reach it. bwrap reports a death by signal N as exit status
128 + N; `exit_status` turns that back into Popen's -N.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

logger = logging.getLogger(__name__)

# Tests (and users whose bwrap is elsewhere) point this at another bwrap; empty: none.
BWRAP_VARIABLE = "TOOLKILN_BWRAP"
INSTALL_HINT = "install bubblewrap (Debian, Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)"
# Private to each read-only confined process: empty, and writable.
PRIVATE = ("/tmp", "/var/tmp")
# Hidden from each read-only confined process: other programs' sockets and runtime
# state (a D-Bus session, a Docker socket) live there, and a socket stays usable read-only.
ALWAYS_HIDDEN = ("/run", "/var/run")
_TRIAL_SECONDS = 10


class ConfinementUnavailable(Exception):
    """bubblewrap is missing or cannot make its namespaces here; the message says which and how to fix it."""


@dataclass(frozen=True)
class Confinement:
    """What a confined process may see, write and reach."""

    network: bool = False
    read_only: bool = True
    writable: tuple[str, ...] = ()  # folders it may write (missing ones are skipped)
    hidden: tuple[str, ...] = ()  # folders it sees empty
    visible: tuple[str, ...] = ()  # folders inside hidden ones that it sees again, read-only


def confined_argv(
    argv: Sequence[str], confinement: Confinement, cwd: str | os.PathLike[str] | None
) -> list[str]:
    """`argv` run inside bubblewrap as `confinement` says; `ConfinementUnavailable` without it."""
    command = [bwrap_path(), "--unshare-all", "--die-with-parent", "--cap-drop", "ALL"]
    if confinement.network:
        command.append("--share-net")
    command += [
        "--ro-bind" if confinement.read_only else "--bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
    ]
    private = (*PRIVATE, *ALWAYS_HIDDEN) if confinement.read_only else ()
    emptied = [path for path in (*private, *confinement.hidden) if _is_real_dir(path)]
    for path in sorted(set(emptied), key=len):  # outer folders first: an inner one is mounted on it
        command += ["--tmpfs", path]
    shown = list(confinement.visible)
    if confinement.network:  # DNS: resolv.conf is often a link into /run
        shown.append(os.path.realpath("/etc/resolv.conf"))
    for path in shown:
        if any(_inside(path, folder) for folder in emptied):
            command += ["--ro-bind-try", path, path]
    for path in confinement.writable:
        command += ["--bind-try", path, path]
    if cwd is not None:
        command += ["--chdir", os.fspath(cwd)]
    return [*command, "--", *argv]


def exit_status(returncode: int | None) -> int | None:
    """bwrap's exit status as Popen reports a process's: 128 + N (killed by signal N) is -N."""
    if returncode is not None and 128 < returncode <= 128 + 64:
        return 128 - returncode
    return returncode


def confinement_problem() -> str | None:
    """Why processes cannot be confined here, or None when they can."""
    try:
        bwrap_path()
    except ConfinementUnavailable as error:
        return str(error)
    return None


def bwrap_path() -> str:
    """bubblewrap's path, once it has shown that it works here (checked once per process)."""
    return _checked_bwrap(os.environ.get(BWRAP_VARIABLE))


@functools.cache
def _checked_bwrap(configured: str | None) -> str:
    path = shutil.which("bwrap") if configured is None else (shutil.which(configured) if configured else None)
    if path is None:
        raise ConfinementUnavailable(f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}")
    trial = [path, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc", "true"]
    try:
        answer = subprocess.run(trial, capture_output=True, timeout=_TRIAL_SECONDS, check=False)
    except (OSError, subprocess.SubprocessError) as error:
        raise ConfinementUnavailable(f"{path} does not run: {error}") from None
    if answer.returncode != 0:
        reason = answer.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no reason given"]
        raise ConfinementUnavailable(
            f"{path} cannot make its namespaces here ({reason[0]}); unprivileged user namespaces may be "
            "turned off (sysctl kernel.unprivileged_userns_clone, or an AppArmor rule for bwrap)"
        )
    logger.debug("confining with %s", path)
    return path


def confined_pid(bwrap_pid: int) -> int | None:
    """The pid (as this process sees it) of the program bwrap `bwrap_pid` runs: its
    grandchild, under the namespace's init; None until bwrap has started it."""
    pid = bwrap_pid
    for _ in range(2):
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as listing:
                children = listing.read().split()
        except OSError:
            return None
        if not children:
            return None
        pid = int(children[0])
    return pid


def _is_real_dir(path: str) -> bool:
    return os.path.isdir(path) and not os.path.islink(path)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
