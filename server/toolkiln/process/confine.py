"""Confinement: a process started inside bubblewrap (`bwrap`), Linux's unprivileged sandbox.

A confined process and everything it starts:
- see the filesystem read-only, but for the folders it may write (`writable`) and a
  private, empty /tmp, and without /run's sockets (`read_only`); or, not `read_only`,
  as the user sees it. Folders it must not see (`hidden`: the home folders, for a
  probe) are empty, and `visible` ones are shown again inside those, read-only, as are
  toolkiln's own files (its runtimes, the Python that runs it) wherever it is installed;
- never see the secrets (`secret`, toolkiln's state folder with its token and task
  store, and whatever `hide_from_every_process` named): they are hidden last, after
  every bind that could show them again, on their resolved paths (`bind_list`);
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
import sys
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
_SECRETS: set[str] = set()


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
    # Files and folders hidden after every other bind (besides `secret_paths()`, always).
    secret: tuple[str, ...] = ()


def confined_argv(
    argv: Sequence[str], confinement: Confinement, cwd: str | os.PathLike[str] | None
) -> list[str]:
    """`argv` run inside bubblewrap as `confinement` says; `ConfinementUnavailable` without it."""
    command = [bwrap_path(), "--unshare-all", "--die-with-parent", "--cap-drop", "ALL"]
    if confinement.network:
        command.append("--share-net")
    command += bind_list(confinement)
    if cwd is not None:
        command += ["--chdir", os.fspath(cwd)]
    return [*command, "--", *argv]


def profile_argv(confinement: Confinement) -> tuple[list[str], list[str]]:
    """bubblewrap's command for a long-lived runner of `confinement` (`runners.py`), up to
    the program, and the folders each of its calls gets fresh (/tmp, /var/tmp; `cell.py`).
    Its resident keeps its capabilities in the profile's namespaces, to make each call's;
    the calls have none. The profile's other emptied folders and /dev are read-only: what
    one call could write there, the next would read."""
    command = [bwrap_path(), "--unshare-all", "--die-with-parent", "--cap-add", "ALL"]
    if confinement.network:
        command.append("--share-net")
    private = sorted({real for path in PRIVATE if (real := _real_dir(path))}) if confinement.read_only else []
    return [*command, *bind_list(confinement, shared=True)], private


def bind_list(confinement: Confinement, *, shared: bool = False) -> list[str]:
    """bubblewrap's mounts for `confinement`, in the one order that keeps secrets hidden:
    the filesystem, the emptied folders, what is shown again inside them (toolkiln's own
    files among it), the writable folders, and last, after every bind that could show
    them again, the secrets: toolkiln's state folder and every path `hide_from_every_process`
    named, each on its resolved path (a symlinked state folder is hidden where it really is)."""
    binds = ["--ro-bind" if confinement.read_only else "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    private = (*PRIVATE, *ALWAYS_HIDDEN) if confinement.read_only else ()
    emptied = sorted({real for path in (*private, *confinement.hidden) if (real := _real_dir(path))}, key=len)
    for path in emptied:  # outer folders first: an inner one is mounted on it
        binds += ["--tmpfs", path]
    shown = [*confinement.visible, *toolkiln_own_folders()]
    if confinement.network:  # DNS: resolv.conf is often a link into /run
        shown.append("/etc/resolv.conf")
    for path in dict.fromkeys(os.path.realpath(path) for path in shown):
        if any(_inside(path, folder) for folder in emptied):
            binds += ["--ro-bind-try", path, path]
    for path in confinement.writable:
        binds += ["--bind-try", path, path]
    binds += _hiding([*confinement.secret, *secret_paths()])
    if shared:  # a runner's: nothing its calls could share by writing (`profile_argv`); last,
        # as the binds above may need mount points made in these folders
        kept = {os.path.realpath(path) for path in PRIVATE}
        for path in ["/dev", *(path for path in emptied if path not in kept)]:
            binds += ["--remount-ro", path]
    return binds


def hide_from_every_process(*paths: str | os.PathLike[str]) -> None:
    """Hide `paths` (files or folders: a token file put elsewhere, the replicas' secret
    file) from every process confined from now on, probes and tool calls alike."""
    _SECRETS.update(os.path.abspath(path) for path in paths)


def secret_paths() -> tuple[str, ...]:
    """What no confined process ever sees: toolkiln's state folder (its token, the running
    server's file, the task store) and what `hide_from_every_process` added."""
    from toolkiln.state_dir import default_state_dir

    return (str(default_state_dir()), *sorted(_SECRETS))


@functools.cache
def toolkiln_own_folders() -> tuple[str, ...]:
    """What toolkiln itself provides to the scripts it runs, read-only wherever it is
    installed (under /tmp, or a hidden home): its package (the argc shim, the mcp-bash
    SDK, the Script Kit shims, the Python worker) and the Python that runs it."""
    import toolkiln

    return tuple(dict.fromkeys([os.path.dirname(toolkiln.__file__), sys.prefix, sys.base_prefix]))


def _hiding(paths: Sequence[str]) -> list[str]:
    """Mounts that hide each of `paths` where it really is (every spelling of it reaches
    that place): an empty folder over a folder, /dev/null over a file."""
    binds: list[str] = []
    for real in dict.fromkeys(os.path.realpath(path) for path in paths):
        if os.path.isdir(real):
            binds += ["--tmpfs", real, "--remount-ro", real]
        elif os.path.exists(real):
            binds += ["--ro-bind", "/dev/null", real]
    return binds


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


def _real_dir(path: str) -> str | None:
    """`path` resolved, when it is a folder; None when there is none to empty."""
    real = os.path.realpath(path)
    return real if os.path.isdir(real) else None


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
