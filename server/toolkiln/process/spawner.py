"""The server's side of the spawner (`spawner_main.py`): started once per process, on the
first tool process, it starts every one after that; `SpawnedProcess` is what the rest of
`process` holds of each, as it would hold a `subprocess.Popen`.

Each start is a fork of the small spawner, not of this (big) process, so containment
costs nothing per call over a plain Popen. The spawner is Linux only (a child subreaper,
pidfds, /proc); elsewhere, or when it cannot start, `spawner()` is None and `spawn.py`
starts processes itself.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TypeAlias

import anyio

from toolkiln.process.spawned import SpawnedProcess
from toolkiln.process.spawner_link import Spawner
from toolkiln.process.spawner_pending import Pending, SpawnerGone

__all__ = [
    "Child",
    "SpawnedProcess",
    "Spawner",
    "SpawnerGone",
    "spawn",
    "spawn_async",
    "spawn_pipelined",
    "spawner",
    "stop_spawner",
]

logger = logging.getLogger(__name__)

# What `process` holds of a running process: started by the spawner, or by Popen without one.
Child: TypeAlias = "subprocess.Popen[bytes] | SpawnedProcess"
_spawner: Spawner | None = None
_spawner_lock = threading.Lock()


def _pidfds_work() -> bool:
    try:
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, OSError):  # not Linux, or before 5.3
        return False
    return True


# Why there is no spawner here, once known (None: there is one, or it is yet to start).
_problem: str | None = (
    "it needs Linux" if not sys.platform.startswith("linux")
    else None if _pidfds_work() else "it needs pidfds (Linux 5.3)"
)  # fmt: skip


def spawner() -> Spawner | None:
    """This process's spawner, started on first use; None where there can be none."""
    global _spawner, _problem
    if _spawner is not None and not _spawner.gone:
        return _spawner
    if _problem is not None:
        return None
    with _spawner_lock:
        if _spawner is None or _spawner.gone:
            if _spawner is not None:  # killed: close our end and reap it
                _spawner.stop()
            try:
                _spawner = Spawner()
            except (OSError, SpawnerGone) as error:
                _problem = f"it cannot start: {error.strerror if isinstance(error, OSError) else error}"
                logger.warning("no spawner (%s): a process that leaves its call may outlive it", _problem)
                return None
    return _spawner


def _forget_in_child() -> None:
    """A forked copy of this process (a server that forks its workers) starts its own
    spawner: the socket is the parent's, and a stream shared by two askers garbles both."""
    global _spawner, _spawner_lock
    _spawner_lock = threading.Lock()  # another thread may have held it at the fork
    if _spawner is not None:
        _spawner.forget()
        _spawner = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def stop_spawner() -> None:
    """Stop the spawner (it kills every process it still holds); a new one starts on next use."""
    global _spawner
    with _spawner_lock:
        if _spawner is not None:
            _spawner.stop()
            _spawner = None


def spawn(
    chosen: Spawner,
    argv: Sequence[str],
    *,
    piped_stdin: bool,
    cwd: str | None,
    env: Mapping[str, str],
    limits: Sequence[tuple[int, int, int]],
) -> SpawnedProcess:
    """Start `argv` through `chosen`, this thread waiting: OSError as Popen raises it
    (errno, strerror); ValueError for a NUL character; SpawnerGone."""
    pending, ours = _ask_start(chosen, argv, piped_stdin, cwd, env, limits)
    try:
        chosen.wait_sync(pending)
    except BaseException:
        _close(ours)
        raise
    return _started(SpawnedProcess(chosen, pending, *ours))


async def spawn_async(
    chosen: Spawner,
    argv: Sequence[str],
    *,
    piped_stdin: bool,
    cwd: str | None,
    env: Mapping[str, str],
    limits: Sequence[tuple[int, int, int]],
) -> SpawnedProcess:
    """As `spawn`, the event loop serving others while the spawner starts it. Not
    cancelled halfway: once asked, the spawner starts it, and the caller must hold it to stop it."""
    pending, ours = _ask_start(chosen, argv, piped_stdin, cwd, env, limits)
    with anyio.CancelScope(shield=True):
        await chosen.wait(pending)
    return _started(SpawnedProcess(chosen, pending, *ours))


def spawn_pipelined(
    chosen: Spawner,
    argv: Sequence[str],
    *,
    piped_stdin: bool,
    cwd: str | None,
    env: Mapping[str, str],
    limits: Sequence[tuple[int, int, int]],
    failure: Callable[[Exception], Exception],
) -> SpawnedProcess:
    """Ask `chosen` to start `argv`, and hold it at once, before the answer: its pipes
    may be read while the spawner starts it, the answer taken when it comes (a start
    that failed is `failure` of OSError, ValueError, SubprocessError or SpawnerGone,
    its `start_failure`). SpawnerGone here: the request never reached it."""
    pending, ours = _ask_start(chosen, argv, piped_stdin, cwd, env, limits)
    return SpawnedProcess(chosen, pending, *ours, failure=failure)


def _ask_start(
    chosen: Spawner, argv: Sequence[str], piped_stdin: bool, cwd: str | None,
    env: Mapping[str, str], limits: Sequence[tuple[int, int, int]],
) -> tuple[Pending, tuple[int | None, int, int]]:  # fmt: skip
    """Send the start of `argv`, with the pipes' far ends; the pending answer, and our ends."""
    pipes = [os.pipe2(os.O_CLOEXEC) for _ in range(3 if piped_stdin else 2)]
    if piped_stdin:
        (stdin_read, stdin_write), (stdout_read, stdout_write), (stderr_read, stderr_write) = pipes
        theirs = [stdin_read, stdout_write, stderr_write]
    else:
        (stdout_read, stdout_write), (stderr_read, stderr_write) = pipes
        stdin_write = None
        theirs = [chosen.devnull, stdout_write, stderr_write]
    ours = (stdin_write, stdout_read, stderr_read)
    try:
        # str, not bytes: the spawner's posix_spawn encodes them as os.fsencode would, in C
        pending = chosen.post(("spawn", list(argv), dict(env), cwd, list(limits)), theirs)
    except BaseException:
        _close(ours)
        raise
    finally:
        for fd in theirs:
            if fd != chosen.devnull:
                os.close(fd)
    return pending, ours


def _started(process: SpawnedProcess) -> SpawnedProcess:
    """`process`, its start's answer come: started, or its failure raised."""
    if process.start_failure is not None:
        process.close_pipes()
        raise process.start_failure
    return process


def _close(fds: Sequence[int | None]) -> None:
    for fd in fds:
        if fd is not None:
            os.close(fd)
