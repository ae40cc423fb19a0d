"""The one place that starts processes: discovery's `--help` probe and every tool call.

Rules kept here and nowhere else: argv lists only, never a shell; each child leads
its own process group; stdin is closed unless input is given; stdout and stderr are
read concurrently and what is kept in memory is capped; on timeout, cancellation or
shutdown the whole group gets SIGTERM, a short grace period, then SIGKILL. When the
main process exits, whatever it left running in its group is killed: no process
outlives its call. A tool's resource limits (`Limits`) are set in the child, before
exec, as rlimits that it and its children inherit.

A child that leaves the group (`setpgid`) or the session (`setsid`, a daemon's double
fork) is out of reach of a group kill. On Linux this process is a child subreaper, so
such a child, once orphaned, becomes our child instead of init's; when a run ends, the
sweep (`_sweep`) kills and reaps every child of ours that belongs to it: by its group or
session, or by the run's marker (`RUN_MARKER`) in its environment.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import errno
import itertools
import logging
import math
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio
from anyio.abc import ObjectReceiveStream

from toolkiln.errors import ProcessStartError

if TYPE_CHECKING:
    from toolkiln.model import Limits

logger = logging.getLogger(__name__)

READ_CHUNK = 64 * 1024
MAX_LINE = 64 * 1024
KILL_GRACE_SECONDS = 0.5
# After the main process exits, how long its pipes may stay open (held by a child
# that escaped the group) before we stop reading.
DRAIN_SECONDS = 1.0
# RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL this many CPU seconds later (the hard
# limit) for a process that catches SIGXCPU.
CPU_KILL_GRACE_SECONDS = 1
# Every process a run starts inherits this variable, unique to the run, so that one that
# left the run's session can still be told apart.
RUN_MARKER = "TOOLKILN_RUN_ID"
_PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>
SWEEP_PASSES = 20  # each pass reaps one more generation of a tree being killed

StderrLineHandler = Callable[[str], None]

_live_groups: dict[int, str] = {}  # pid (= group = session) of each run not yet stopped -> its marker
_run_numbers = itertools.count(1)
_subreaper: bool | None = None  # None: not tried yet


@dataclass(frozen=True)
class ProcessResult:
    """What a finished (or stopped) process produced."""

    argv: tuple[str, ...]
    returncode: int | None
    stdout: bytes
    stdout_total: int
    stderr_tail: bytes
    stderr_total: int
    timed_out: bool
    duration: float

    @property
    def stdout_truncated(self) -> bool:
        return self.stdout_total > len(self.stdout)

    @property
    def stdout_text(self) -> str:
        return decode(self.stdout)

    @property
    def stderr_text(self) -> str:
        return decode(self.stderr_tail)


def decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


async def run_process(
    argv: Sequence[str],
    *,
    timeout: float,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    more_input: ObjectReceiveStream[bytes] | None = None,
    stdout_limit: int = 1024 * 1024,
    stderr_limit: int = 64 * 1024,
    on_stderr_line: StderrLineHandler | None = None,
    limits: Limits | None = None,
    on_started: Callable[[], None] | None = None,
) -> ProcessResult:
    """Run `argv` to completion or until `timeout` seconds, whichever comes first.

    stdin gets `input`, then each chunk `more_input` brings (an interactive script's
    answers) until that stream ends; without either, stdin is /dev/null.

    `limits` become the child's rlimits (see `rlimit_preexec`); its `max_output_bytes`
    is the caller's business (pass it as `stdout_limit`). `on_started` runs once the
    process does: the caller's work done while the script runs is off the call's path.
    Raises `ProcessStartError` when the program cannot be started at all.
    Cancelling the caller stops the process group before the cancellation continues.
    """
    started = time.perf_counter()
    piped = input is not None or more_input is not None
    process = _start(argv, piped_stdin=piped, cwd=cwd, env=env, limits=limits)
    stdout = _CappedBuffer(stdout_limit)
    stderr = _StderrReader(stderr_limit, on_stderr_line)
    timed_out = False
    try:
        if on_started is not None:
            on_started()
        with anyio.move_on_after(timeout) as deadline:
            await _communicate(process, input, more_input, stdout, stderr)
        timed_out = deadline.cancelled_caught
    finally:
        with anyio.CancelScope(shield=True):
            await _stop_group(process)
            _close_pipes(process)
    duration = time.perf_counter() - started
    logger.debug(
        "ran %s in %s: exit %s in %.1f ms%s",
        list(argv), cwd or ".", process.returncode, duration * 1000, " (timed out)" if timed_out else "",
    )  # fmt: skip
    return ProcessResult(
        argv=tuple(argv),
        returncode=None if timed_out else process.returncode,
        stdout=bytes(stdout.data),
        stdout_total=stdout.total,
        stderr_tail=bytes(stderr.tail.data),
        stderr_total=stderr.tail.total,
        timed_out=timed_out,
        duration=duration,
    )


def _start(
    argv: Sequence[str],
    *,
    piped_stdin: bool,
    cwd: str | os.PathLike[str] | None,
    env: Mapping[str, str] | None,
    limits: Limits | None,
) -> subprocess.Popen[bytes]:
    """Popen in a new session (its own process group, tracked until it is stopped);
    `ProcessStartError` when the program cannot be started at all."""
    _become_subreaper()
    marker = f"{os.getpid()}-{next(_run_numbers)}"
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if piped_stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**(os.environ if env is None else env), RUN_MARKER: marker},
            start_new_session=True,
            preexec_fn=rlimit_preexec(limits),
        )
    except OSError as error:
        if error.errno == errno.E2BIG:
            raise ProcessStartError(
                f"cannot start {argv[0]}: its arguments are too big for a command line and environment "
                "(at most 128 KiB a value, about 2 MiB in all); pass big data in a file",
                about_arguments=True,
            ) from None
        raise ProcessStartError(f"cannot start {argv[0]}: {error.strerror or error}") from None
    except ValueError:  # the OS cannot pass a NUL character (or text that is not UTF-8) in argv or env
        raise ProcessStartError(
            f"cannot start {argv[0]}: an argument contains a NUL character", about_arguments=True
        ) from None
    except subprocess.SubprocessError as error:  # setting a limit failed in the child
        raise ProcessStartError(f"cannot start {argv[0]}: {error}") from None
    _live_groups[process.pid] = marker
    return process


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
    if limits is None:
        return None
    settings: list[tuple[int, tuple[int, int]]] = []
    if limits.cpu_seconds is not None:
        settings.append(
            _clamped(resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + CPU_KILL_GRACE_SECONDS)
        )
        _, core_hard = resource.getrlimit(resource.RLIMIT_CORE)
        settings.append((resource.RLIMIT_CORE, (0, core_hard)))
    if limits.memory_mb is not None:
        address_space = limits.memory_mb * 1024 * 1024
        settings.append(_clamped(resource.RLIMIT_AS, address_space, address_space))
    if limits.open_files is not None:
        settings.append(_clamped(resource.RLIMIT_NOFILE, limits.open_files, limits.open_files))
    if limits.processes is not None:
        settings.append(_clamped(resource.RLIMIT_NPROC, limits.processes, limits.processes))
    if not settings:
        return None

    def set_limits() -> None:  # runs in the child between fork and exec: keep it minimal
        for which, values in settings:
            resource.setrlimit(which, values)

    return set_limits


def _clamped(which: int, soft: int, hard: int) -> tuple[int, tuple[int, int]]:
    """`(which, (soft, hard))` with neither above the current hard limit of `which`."""
    _, current_hard = resource.getrlimit(which)
    if current_hard != resource.RLIM_INFINITY:
        soft, hard = min(soft, current_hard), min(hard, current_hard)
    return which, (soft, hard)


async def _communicate(
    process: subprocess.Popen[bytes],
    input: bytes | None,
    more_input: ObjectReceiveStream[bytes] | None,
    stdout: _CappedBuffer,
    stderr: _StderrReader,
) -> None:
    assert process.stdout is not None and process.stderr is not None
    readers = _PipeReaders({process.stdout.fileno(): stdout.add, process.stderr.fileno(): stderr.add})
    try:
        async with _feeding(process, input or b"", more_input):
            await _wait_for_exit(process)
            # The call is over when the main process is; anything it left behind in
            # its group, or that escaped it, goes now, which also closes the pipes those held.
            await _stop_group(process)
            with anyio.move_on_after(DRAIN_SECONDS):
                await readers.closed()
    finally:
        readers.stop()
    stderr.finish()


class _PipeReaders:
    """stdout and stderr, read by the event loop's readers as data comes: no task per pipe.

    A short script's output, its end and its exit arrive together; with a task per pipe
    each call paid two task starts and the loop turns to wake them (~0.2 ms a call).
    """

    # Chunks read per wake-up: enough for most outputs and their end in one, while a
    # flood still lets the event loop serve other calls in between.
    CHUNKS_PER_WAKE = 8

    def __init__(self, sinks: dict[int, Callable[[bytes], None]]) -> None:
        self._loop = asyncio.get_running_loop()
        self._sinks = sinks
        self._waiter: asyncio.Future[None] | None = None
        for fd in sinks:
            os.set_blocking(fd, False)
            self._loop.add_reader(fd, self._read, fd)

    def _read(self, fd: int) -> None:
        try:
            for _ in range(self.CHUNKS_PER_WAKE):
                chunk = os.read(fd, READ_CHUNK)
                if not chunk:
                    break
                self._sinks[fd](chunk)
            else:
                return  # more to come: the reader fires again on the next turn
        except BlockingIOError:
            return
        except Exception:  # a bug of ours in a sink: the pipe is read no further, the loop goes on
            logger.exception("reading a tool's output failed")
        self._loop.remove_reader(fd)
        del self._sinks[fd]
        if not self._sinks and self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def closed(self) -> None:
        """Until both pipes have ended (every writer has closed them)."""
        while self._sinks:
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None

    def stop(self) -> None:
        for fd in self._sinks:
            self._loop.remove_reader(fd)
        self._sinks = {}


@contextlib.asynccontextmanager
async def _feeding(
    process: subprocess.Popen[bytes], data: bytes, more: ObjectReceiveStream[bytes] | None
) -> AsyncIterator[None]:
    """stdin gets `data`, then each chunk `more` brings. The usual input (arguments that
    fit in the pipe, nothing more to come) is written at once and stdin closed, without
    a task; otherwise a task writes as the script reads."""
    if process.stdin is None:
        yield
        return
    unwritten = _write_at_once(process.stdin.fileno(), data)
    if not unwritten and more is None:
        process.stdin.close()
        yield
        return
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_feed, process, unwritten, more)
        yield
        tasks.cancel_scope.cancel()


def _write_at_once(fd: int, data: bytes) -> bytes:
    """Write what the pipe takes without waiting; what is left."""
    os.set_blocking(fd, False)
    try:
        return data[os.write(fd, data) :] if data else data
    except BlockingIOError:
        return data
    except (BrokenPipeError, ConnectionResetError):
        return b""  # the script did not read its input; that is its choice


async def _feed(
    process: subprocess.Popen[bytes], data: bytes, more: ObjectReceiveStream[bytes] | None
) -> None:
    assert process.stdin is not None
    fd = process.stdin.fileno()
    try:
        await _write_all(fd, data)
        if more is not None:
            async for chunk in more:
                await _write_all(fd, chunk)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the script did not read its input; that is its choice
    finally:
        process.stdin.close()


async def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:  # write first, wait only when the pipe is full (as _drain reads)
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            await anyio.wait_writable(fd)


async def _drain(fd: int, sink: Callable[[bytes], None]) -> None:
    # Read first, wait only when the pipe is empty: a short script's output and its end
    # are usually there together, and each wait costs the event loop two epoll changes.
    os.set_blocking(fd, False)
    while True:
        try:
            chunk = os.read(fd, READ_CHUNK)
        except BlockingIOError:
            await anyio.wait_readable(fd)
            continue
        if not chunk:
            return
        sink(chunk)


async def _wait_for_exit(process: subprocess.Popen[bytes]) -> None:
    """Wait for the main process to exit, whoever still holds its pipes."""
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


async def _stop_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the group, give it a grace period, then SIGKILL whatever is left; once
    (a group stopped already is no longer tracked)."""
    if process.pid not in _live_groups:
        return
    if process.poll() is None:
        _signal_group(process.pid, signal.SIGTERM)
        with anyio.move_on_after(KILL_GRACE_SECONDS):
            await _wait_for_exit(process)
    _signal_group(process.pid, signal.SIGKILL)
    if process.poll() is None:
        await _wait_for_exit(process)
    await _sweep(process.pid)
    _live_groups.pop(process.pid, None)


def _close_pipes(process: subprocess.Popen[bytes]) -> None:
    for pipe in (process.stdin, process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


@atexit.register
def kill_all_groups() -> None:
    """Last line of defence: no tool process survives the server, however it ends.

    Servers call it as they stop too: a stop by signal may end the process before
    the cancelled calls have cleaned up after themselves, and before atexit runs."""
    runs = _live_groups.copy()
    for pgid in runs:
        _signal_group(pgid, signal.SIGKILL)
    _kill_orphans(runs)
    _live_groups.clear()


def _become_subreaper() -> None:
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
    if not _subreaper or pid not in _live_groups:
        return
    for _ in range(SWEEP_PASSES):
        orphans = _kill_orphans({pid: _live_groups[pid]})
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
    started = _live_groups.copy()  # one atomic copy: discovery may start processes in another thread
    for pid in _children() - started.keys():
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            state, pgid, sid = fields[0], int(fields[2]), int(fields[3])
        except (OSError, IndexError, ValueError):
            continue
        if pgid in runs or sid in runs or (state != "Z" and _marker_of(pid) in runs.values()):
            if pgid not in started or pgid in runs:  # never another run's group
                _signal_group(pgid, signal.SIGKILL)
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


class _CappedBuffer:
    """Keeps the first `limit` bytes and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.limit - len(self.data)
        if room > 0:
            self.data += chunk[:room]


class _TailBuffer:
    """Keeps the last `limit` bytes and counts all of them."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.data += chunk
        if len(self.data) > self.limit:
            del self.data[: len(self.data) - self.limit]


class _StderrReader:
    """Keeps the tail of stderr and hands each decoded line to a handler as it arrives."""

    def __init__(self, limit: int, on_line: StderrLineHandler | None) -> None:
        self.tail = _TailBuffer(limit)
        self.on_line = on_line
        self.pending = bytearray()

    def add(self, chunk: bytes) -> None:
        self.tail.add(chunk)
        if self.on_line is None:
            return
        self.pending += chunk
        *lines, rest = self.pending.split(b"\n")
        self.pending = bytearray(rest)
        for line in lines:
            self._emit(line)
        if len(self.pending) > MAX_LINE:  # an endless line is still delivered, in pieces
            self._emit(self.pending)
            self.pending = bytearray()

    def finish(self) -> None:
        if self.on_line is not None and self.pending:
            self._emit(self.pending)
            self.pending = bytearray()

    def _emit(self, line: bytes | bytearray) -> None:
        assert self.on_line is not None
        try:
            self.on_line(decode(bytes(line)).rstrip("\r"))
        except Exception:  # a broken handler must not stop the reading
            logger.exception("stderr line handler failed")


def _cpu_time(pid: int) -> float:
    """User and system CPU seconds that process `pid` has used."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class LineTooLong(Exception):
    """A worker's answer line outgrew its limit (the stream is out of step: stop the worker)."""


class LiveProcess:
    """A long-lived child that answers line by line (a warm worker), in its own group.

    Unlike `run_process`, its pipes stay open between requests; whoever holds it
    must `stop()` it, and the exit handler kills it if nobody did.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str],
        env: Mapping[str, str],
        limits: Limits | None,
    ) -> None:
        # RLIMIT_CPU counts a process's whole life: a worker gets a budget per request instead.
        self.cpu_seconds = limits.cpu_seconds if limits else None
        limits = limits.model_copy(update={"cpu_seconds": None}) if limits else None
        self._process = _start(argv, piped_stdin=True, cwd=cwd, env=env, limits=limits)
        assert self._process.stdin and self._process.stdout and self._process.stderr
        self._stdin, self._stdout, self._stderr = (
            self._process.stdin.fileno(), self._process.stdout.fileno(), self._process.stderr.fileno()
        )  # fmt: skip
        for fd in (self._stdin, self._stdout, self._stderr):
            os.set_blocking(fd, False)
        self._pending = bytearray()
        self._stderr_reader = _StderrReader(16 * 1024, None)
        logger.debug("started %s in %s: pid %d", list(argv), cwd, self._process.pid)

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.poll()

    @property
    def stderr_tail(self) -> str:
        """The last 16 KiB it wrote to stderr."""
        return decode(bytes(self._stderr_reader.tail.data))

    async def send(self, data: bytes) -> None:
        """Write all of `data` to its stdin (BrokenPipeError when it has gone), after giving
        it `cpu_seconds` more CPU time than it has used so far, when it has such a limit."""
        if self.cpu_seconds is not None:
            with contextlib.suppress(OSError):  # it has gone: reading its answer finds out
                budget = math.ceil(_cpu_time(self.pid)) + self.cpu_seconds
                # Only the soft limit moves (SIGXCPU): raising a hard limit needs privileges.
                _, hard = resource.prlimit(self.pid, resource.RLIMIT_CPU)
                resource.prlimit(
                    self.pid,
                    resource.RLIMIT_CPU,
                    (budget if hard == resource.RLIM_INFINITY else min(budget, hard), hard),
                )
        await _write_all(self._stdin, data)

    async def read_line(self, limit: int, on_stderr_line: StderrLineHandler | None) -> bytes | None:
        """The next stdout line (without its newline), or None when stdout closed; its
        stderr lines meanwhile go to `on_stderr_line`."""
        self._stderr_reader.on_line = on_stderr_line
        line: bytes | LineTooLong | None = None
        try:
            async with anyio.create_task_group() as readers:
                readers.start_soon(_drain, self._stderr, self._stderr_reader.add)
                try:
                    line = await self._next_line(limit)
                except LineTooLong as error:  # raised below, not in the task group's ExceptionGroup
                    line = error
                readers.cancel_scope.cancel()
            if isinstance(line, LineTooLong):
                raise line
            self._read_available_stderr()  # what it wrote just before the answer
            return line
        finally:
            self._stderr_reader.on_line = None

    async def _next_line(self, limit: int) -> bytes | None:
        while (end := self._pending.find(b"\n")) < 0:
            if len(self._pending) > limit:
                raise LineTooLong(f"an answer of more than {limit} bytes")
            try:  # read first, wait only when there is nothing yet (as _drain does)
                chunk = os.read(self._stdout, READ_CHUNK)
            except BlockingIOError:
                await anyio.wait_readable(self._stdout)
                continue
            if not chunk:
                return None
            self._pending += chunk
        line = bytes(self._pending[:end])
        del self._pending[: end + 1]
        return line

    def _read_available_stderr(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            while chunk := os.read(self._stderr, READ_CHUNK):
                self._stderr_reader.add(chunk)

    async def stop(self) -> None:
        """Stop its whole group (SIGTERM, grace period, SIGKILL) and close its pipes."""
        with anyio.CancelScope(shield=True):
            await _stop_group(self._process)
            _close_pipes(self._process)

    async def wait(self, timeout: float) -> int | None:
        """Its exit code, once it exits within `timeout` seconds (None if it does not)."""
        with anyio.move_on_after(timeout):
            await _wait_for_exit(self._process)
        return self._process.poll()
