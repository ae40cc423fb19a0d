"""Process groups: waiting for a run's main process, stopping its whole group, and the
sweep of processes that escaped it.

A process started by the spawner (`spawner.py`, Linux) needs no sweep: the spawner
kills its group and whatever it left the moment it exits, and everything when the server
dies. What follows is for processes started directly (`spawn.py`, where there is no spawner).

A child that leaves the group (`setpgid`) or the session (`setsid`, a daemon's double
fork) is out of reach of a group kill. On Linux this process is a child subreaper, so
such a child, once orphaned, becomes our child instead of init's; when a run ends, the
sweep (`_sweep`) kills and reaps every child of ours that belongs to it: by its group or
session, or by the run's marker (`RUN_MARKER`) in its environment. A confined run
(`confine.py`) needs none of this: its PID namespace ends with its main process.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Mapping

import anyio

from toolkiln.process.runners import stop_runners
from toolkiln.process.spawner import Child, SpawnedProcess, stop_spawner

logger = logging.getLogger(__name__)

KILL_GRACE_SECONDS = 0.5
# Every process a run starts inherits this variable, unique to the run, so that one that
# left the run's session can still be told apart.
RUN_MARKER = "TOOLKILN_RUN_ID"
_PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>
SWEEP_PASSES = 20  # each pass reaps one more generation of a tree being killed

live_groups: dict[int, str] = {}  # pid (= group = session) of each run not yet stopped -> its marker
_subreaper: bool | None = None  # None: not tried yet


async def wait_for_exit(process: Child) -> None:
    """Wait for the main process to exit, whoever still holds its pipes."""
    if isinstance(process, SpawnedProcess):
        # The spawner says when it exits, unasked; or it has gone (a hostile unconfined
        # tool may kill it): then the call ends now, killed.
        await process.wait_exit()
        return
    try:
        pidfd = os.pidfd_open(process.pid)
    except (AttributeError, OSError):  # no pidfd (not Linux): a waiting thread instead
        await anyio.to_thread.run_sync(process.wait, abandon_on_cancel=True)
        return
    try:
        await anyio.wait_readable(pidfd)
    finally:
        os.close(pidfd)
    process.wait()


async def stop_group(process: Child) -> None:
    """SIGTERM the group, give it a grace period, then SIGKILL whatever is left; once
    (a group stopped already is no longer tracked)."""
    if isinstance(process, SpawnedProcess):
        # Once its main process has exited, the spawner has killed its group and what it
        # left. Stopped before the start's answer came (a timeout, a cancel): it comes first.
        if process.returncode is None and await process.wait_started() and process.poll() is None:
            process.signal_group(signal.SIGTERM)
            with anyio.move_on_after(KILL_GRACE_SECONDS):
                await wait_for_exit(process)
            process.signal_group(signal.SIGKILL)
            await wait_for_exit(process)
        return
    if process.pid not in live_groups:
        return
    if process.poll() is None:
        signal_group(process.pid, signal.SIGTERM)
        with anyio.move_on_after(KILL_GRACE_SECONDS):
            await wait_for_exit(process)
    signal_group(process.pid, signal.SIGKILL)
    if process.poll() is None:
        await wait_for_exit(process)
    await _sweep(process.pid)
    live_groups.pop(process.pid, None)


def close_pipes(process: Child) -> None:
    for pipe in (process.stdin, process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()


def signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


@atexit.register
def kill_all_groups() -> None:
    """Last line of defence: no tool process survives the server, however it ends.

    Servers call it as they stop too: a stop by signal may end the process before
    the cancelled calls have cleaned up after themselves, and before atexit runs."""
    stop_runners()
    stop_spawner()
    runs = live_groups.copy()
    for pgid in runs:
        signal_group(pgid, signal.SIGKILL)
    _kill_orphans(runs)
    live_groups.clear()


def become_subreaper() -> None:
    """Have orphaned descendants re-parented to this process (Linux), once per process."""
    global _subreaper
    if _subreaper is not None:
        return
    _subreaper = False
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            _subreaper = ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    if not _subreaper:
        logger.debug("not a child subreaper: a process that leaves its session may outlive its call")


async def _sweep(pid: int) -> None:
    """Kill and reap every orphan of run `pid` that was re-parented to us, generation by
    generation (killing one orphans its own children in turn)."""
    if not _subreaper or pid not in live_groups:
        return
    for _ in range(SWEEP_PASSES):
        orphans = _kill_orphans({pid: live_groups[pid]})
        if not orphans:
            return
        logger.debug("run %d left %d processes outside its group or alive: %s", pid, len(orphans), orphans)
        for orphan in orphans:
            with anyio.move_on_after(KILL_GRACE_SECONDS):
                await _wait_for_pid(orphan)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(orphan, os.WNOHANG)


def _kill_orphans(runs: Mapping[int, str]) -> list[int]:
    """SIGKILL the children of ours, not started by us, that belong to one of `runs` (pid ->
    marker): by group or session, or by marker for one that left the session. Returns their pids."""
    found = []
    started = live_groups.copy()  # one atomic copy: discovery may start processes in another thread
    for pid in _children() - started.keys():
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            state, pgid, sid = fields[0], int(fields[2]), int(fields[3])
        except (OSError, IndexError, ValueError):
            continue
        if pgid in runs or sid in runs or (state != "Z" and _marker_of(pid) in runs.values()):
            if pgid not in started or pgid in runs:  # never another run's group
                signal_group(pgid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            found.append(pid)
    return found


def _children() -> set[int]:
    """The pids of the main thread's children. An orphan is handed to a subreaper's first
    live thread, which is the main one, so that list is all the sweep needs (one read
    instead of one per thread: this runs at the end of every call)."""
    try:  # no child at all (the usual end of a call when none other runs): no /proc read
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return set()
    except AttributeError:  # no waitid here
        pass
    try:
        with open(f"/proc/self/task/{os.getpid()}/children") as listing:
            return {int(pid) for pid in listing.read().split()}
    except OSError:
        return set()


def _marker_of(pid: int) -> str | None:
    prefix = f"{RUN_MARKER}=".encode()
    with contextlib.suppress(OSError), open(f"/proc/{pid}/environ", "rb") as environ:
        for entry in environ.read().split(b"\0"):
            if entry.startswith(prefix):
                return entry[len(prefix) :].decode(errors="replace")
    return None


async def _wait_for_pid(pid: int) -> None:
    """Wait until process `pid` (not started by Popen) has exited."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return
    try:
        await anyio.wait_readable(pidfd)
    finally:
        os.close(pidfd)
