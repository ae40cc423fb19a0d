"""Starting a process: argv only, in a session of its own, with its rlimits set before
exec, and confined (`confine.py`) when the caller asks."""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import os
import resource
import shutil
import subprocess
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolkiln.errors import ProcessStartError
from toolkiln.process.confine import Confinement, ConfinementUnavailable, confined_argv
from toolkiln.process.groups import RUN_MARKER, become_subreaper, live_groups
from toolkiln.process.runners import runner_for
from toolkiln.process.spawner import Child, Spawner, SpawnerGone, spawn, spawn_async, spawn_pipelined, spawner

if TYPE_CHECKING:
    from toolkiln.model import Limits

# RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL this many CPU seconds later (the hard
# limit) for a process that catches SIGXCPU.
CPU_KILL_GRACE_SECONDS = 1
_run_numbers = itertools.count(1)
# False: every process is started here, by Popen, as before the spawner (benchmarks compare the two).
USE_SPAWNER = True
# False: each confined process starts a bubblewrap of its own, as before the runners (benchmarks).
USE_RUNNERS = True
# False: `start_process_async` waits for the spawner's answer, as before pipelining (benchmarks).
PIPELINED = True


def start_process(
    argv: Sequence[str],
    *,
    piped_stdin: bool,
    cwd: str | os.PathLike[str] | None,
    env: Mapping[str, str] | None,
    limits: Limits | None,
    confinement: Confinement | None = None,
    resident: bool = True,
) -> Child:
    """A process in a new session (its own process group), inside bubblewrap when
    `confinement` is given: by the long-lived runner of its confinement profile
    (`runners.py`) unless `resident` is False, else in a bubblewrap of its own; started
    by the spawner (`spawner.py`) where there is one, else by Popen here (tracked until it
    is stopped); `ProcessStartError` when the program cannot be started at all. This
    thread waits for the start (`start_process_async` is for an event loop's task)."""
    plan = _Plan(argv, cwd, env, confinement, resident)
    with _start_errors(argv):
        if plan.chosen is None:
            return plan.popen(piped_stdin, limits)
        for attempt in range(2):
            try:
                return spawn(plan.chosen, **plan.spawning(piped_stdin, limits))
            except SpawnerGone as error:
                plan.renew(error, attempt)
    raise AssertionError("unreachable")


async def start_process_async(
    argv: Sequence[str],
    *,
    piped_stdin: bool,
    cwd: str | os.PathLike[str] | None,
    env: Mapping[str, str] | None,
    limits: Limits | None,
    confinement: Confinement | None = None,
) -> Child:
    """`start_process`, the event loop serving other calls while the spawner starts it.
    Pipelined, by the spawner: it returns once the start is asked, not answered; the
    answer comes while the process runs, and a start that failed is its
    `ProcessStartError`, which `SpawnedProcess.raise_failure` raises. A runner's start is waited
    for: one that has gone meanwhile is asked of a new runner."""
    plan = _Plan(argv, cwd, env, confinement, True)
    with _start_errors(argv):
        if plan.chosen is None:
            return plan.popen(piped_stdin, limits)
        for attempt in range(2):
            try:
                if plan.chosen.replayable or not PIPELINED:
                    return await spawn_async(plan.chosen, **plan.spawning(piped_stdin, limits))
                failure = functools.partial(_start_error, argv)
                return spawn_pipelined(plan.chosen, **plan.spawning(piped_stdin, limits), failure=failure)
            except SpawnerGone as error:
                plan.renew(error, attempt)
    raise AssertionError("unreachable")


class _Plan:
    """How a process is started: by which spawner or runner (and which would replace it),
    as which command, with which environment."""

    def __init__(
        self, argv: Sequence[str], cwd: str | os.PathLike[str] | None, env: Mapping[str, str] | None,
        confinement: Confinement | None, resident: bool,
    ) -> None:  # fmt: skip
        self.argv = argv
        self.cwd = None if cwd is None else os.fspath(cwd)
        self.chosen = spawner() if USE_SPAWNER else None
        if self.chosen is None:
            become_subreaper()
        self.marker = f"{os.getpid()}-{next(_run_numbers)}"
        self.command = list(argv)
        self.again: Callable[[], Spawner | None] = spawner
        if confinement is not None:
            _check_program(argv[0])  # bwrap would only say so on stderr
            try:
                runner = (
                    runner_for(confinement) if self.chosen is not None and resident and USE_RUNNERS else None
                )
                if runner is not None:
                    self.chosen, self.again = runner, functools.partial(runner_for, confinement)
                else:
                    self.command = confined_argv(argv, confinement, cwd)
            except ConfinementUnavailable as error:
                raise ProcessStartError(f"cannot start {argv[0]} confined: {error}") from None
        self.env = {**(os.environ if env is None else env), RUN_MARKER: self.marker}

    def spawning(self, piped_stdin: bool, limits: Limits | None) -> dict[str, Any]:
        return {
            "argv": self.command, "piped_stdin": piped_stdin, "cwd": self.cwd, "env": self.env,
            "limits": rlimit_settings(limits),
        }  # fmt: skip

    def renew(self, error: SpawnerGone, attempt: int) -> None:
        """After the spawner (or runner) was found gone: ask a new one, when it was killed
        before the request reached it, never when it may have started it. A runner that
        has gone took whatever it had started with it (its PID namespace): asking a new
        one cannot run the program twice."""
        assert self.chosen is not None
        again = self.again() if (error.unsent or self.chosen.replayable) and not attempt else None
        if again is None:
            raise ProcessStartError(f"cannot start {self.argv[0]}: {error}") from None
        self.chosen = again

    def popen(self, piped_stdin: bool, limits: Limits | None) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE if piped_stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self.cwd,
            env=self.env,
            start_new_session=True,
            preexec_fn=rlimit_preexec(limits),
        )
        live_groups[process.pid] = self.marker
        return process


@contextlib.contextmanager
def _start_errors(argv: Sequence[str]) -> Iterator[None]:
    """A start's failures, as `ProcessStartError`."""
    try:
        yield
    except (OSError, ValueError, subprocess.SubprocessError) as error:
        raise _start_error(argv, error) from None


def _start_error(argv: Sequence[str], error: Exception) -> Exception:
    """A start's failure (the spawner gone before it answered too) as `ProcessStartError`."""
    if isinstance(error, OSError):
        if error.errno == errno.E2BIG:
            return ProcessStartError(
                f"cannot start {argv[0]}: its arguments are too big for a command line and environment "
                "(at most 128 KiB a value, about 2 MiB in all); pass big data in a file",
                about_arguments=True,
            )
        return ProcessStartError(f"cannot start {argv[0]}: {error.strerror or error}")
    if isinstance(error, ValueError):  # the OS cannot pass a NUL character (or text that is not UTF-8)
        return ProcessStartError(
            f"cannot start {argv[0]}: an argument contains a NUL character", about_arguments=True
        )
    if isinstance(error, (subprocess.SubprocessError, SpawnerGone)):  # a limit failed; gone before answering
        return ProcessStartError(f"cannot start {argv[0]}: {error}")
    return error


def _check_program(program: str) -> None:
    """`ProcessStartError` for a program that is not there to run, as Popen raises it."""
    path = program if "/" in program else shutil.which(program)
    if path is None or not os.path.exists(path):
        raise ProcessStartError(f"cannot start {program}: No such file or directory")
    if not os.access(path, os.X_OK) or os.path.isdir(path):
        raise ProcessStartError(f"cannot start {program}: Permission denied")


def rlimit_preexec(limits: Limits | None) -> Callable[[], None] | None:
    """A `preexec_fn` for `subprocess.Popen` that sets `limits` as the child's rlimits,
    or None when there is nothing to set.

    Pass None on to Popen as it is: any preexec_fn makes Popen fork instead of vfork,
    and the child runs Python before exec. That costs 1 to 5 ms more per start, more
    the bigger the parent (~1 ms from a bare interpreter, 3 to 5 ms from a server with
    the SDK loaded), so only calls with an rlimit to set pay it.

    - `cpu_seconds`: RLIMIT_CPU, soft at the limit (SIGXCPU), hard a second above it
      (SIGKILL, for a process that handles SIGXCPU). CPU time is counted per process:
      each child of the tool has its own budget. RLIMIT_CORE's soft limit is set to 0
      too, so SIGXCPU leaves no core file in the tool's folder.
    - `memory_mb`: RLIMIT_AS, the address space (virtual memory, not resident memory;
      runtimes that reserve much up front, such as the JVM or Go, need generous values).
    - `open_files`: RLIMIT_NOFILE, the highest file descriptor number plus one.
    - `processes`: RLIMIT_NPROC, which counts every process (and thread) of the user
      that runs the server, not those of the call; root is not held by it.

    No limit is set above the server's own hard limit: such a value is clamped to it.
    The values are worked out here, in the parent; the child only calls setrlimit.
    """
    settings = rlimit_settings(limits)
    if not settings:
        return None

    def set_limits() -> None:  # runs in the child between fork and exec: keep it minimal
        for which, soft, hard in settings:
            resource.setrlimit(which, (soft, hard))

    return set_limits


def rlimit_settings(limits: Limits | None) -> list[tuple[int, int, int]]:
    """`(which, soft, hard)` for each rlimit that `limits` sets (see `rlimit_preexec`)."""
    settings: list[tuple[int, int, int]] = []
    if limits is None:
        return settings
    if limits.cpu_seconds is not None:
        settings.append(
            _clamped(resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + CPU_KILL_GRACE_SECONDS)
        )
        _, core_hard = resource.getrlimit(resource.RLIMIT_CORE)
        settings.append((resource.RLIMIT_CORE, 0, core_hard))
    if limits.memory_mb is not None:
        address_space = limits.memory_mb * 1024 * 1024
        settings.append(_clamped(resource.RLIMIT_AS, address_space, address_space))
    if limits.open_files is not None:
        settings.append(_clamped(resource.RLIMIT_NOFILE, limits.open_files, limits.open_files))
    if limits.processes is not None:
        settings.append(_clamped(resource.RLIMIT_NPROC, limits.processes, limits.processes))
    return settings


def _clamped(which: int, soft: int, hard: int) -> tuple[int, int, int]:
    """`(which, soft, hard)` with neither above the current hard limit of `which`."""
    _, current_hard = resource.getrlimit(which)
    if current_hard != resource.RLIM_INFINITY:
        soft, hard = min(soft, current_hard), min(hard, current_hard)
    return which, soft, hard
