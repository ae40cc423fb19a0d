"""The one place that starts processes: discovery's `--help` probe and every tool call.

Rules kept here and nowhere else: argv lists only, never a shell; each child leads
its own process group; stdin is closed unless input is given; stdout and stderr are
read concurrently and what is kept in memory is capped; on timeout, cancellation or
shutdown the whole group gets SIGTERM, a short grace period, then SIGKILL. When the
main process exits, whatever it left running in its group is killed: no process
outlives its call.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import anyio

from toolkiln.errors import ProcessStartError

logger = logging.getLogger(__name__)

READ_CHUNK = 64 * 1024
MAX_LINE = 64 * 1024
KILL_GRACE_SECONDS = 0.5
# After the main process exits, how long its pipes may stay open (held by a child
# that escaped the group) before we stop reading.
DRAIN_SECONDS = 1.0

StderrLineHandler = Callable[[str], None]

_live_groups: set[int] = set()


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
    stdout_limit: int = 1024 * 1024,
    stderr_limit: int = 64 * 1024,
    on_stderr_line: StderrLineHandler | None = None,
) -> ProcessResult:
    """Run `argv` to completion or until `timeout` seconds, whichever comes first.

    Raises `ProcessStartError` when the program cannot be started at all.
    Cancelling the caller stops the process group before the cancellation continues.
    """
    started = time.perf_counter()
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
    except OSError as error:
        raise ProcessStartError(f"cannot start {argv[0]}: {error.strerror or error}") from None
    except ValueError:  # the OS cannot pass a NUL character in argv or env
        raise ProcessStartError(f"cannot start {argv[0]}: an argument contains a NUL character") from None
    _live_groups.add(process.pid)
    stdout = _CappedBuffer(stdout_limit)
    stderr = _StderrReader(stderr_limit, on_stderr_line)
    timed_out = False
    try:
        with anyio.move_on_after(timeout) as deadline:
            await _communicate(process, input, stdout, stderr)
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


async def _communicate(
    process: subprocess.Popen[bytes], input: bytes | None, stdout: _CappedBuffer, stderr: _StderrReader
) -> None:
    assert process.stdout is not None and process.stderr is not None
    pipes_closed = anyio.Event()

    async def read_both() -> None:
        assert process.stdout is not None and process.stderr is not None
        async with anyio.create_task_group() as readers:
            readers.start_soon(_drain, process.stdout.fileno(), stdout.add)
            readers.start_soon(_drain, process.stderr.fileno(), stderr.add)
        pipes_closed.set()

    async with anyio.create_task_group() as tasks:
        if input is not None:
            tasks.start_soon(_feed, process, input)
        tasks.start_soon(read_both)
        await _wait_for_exit(process)
        # The call is over when the main process is; anything it left behind in
        # its group goes now, which also closes the pipes those children held.
        _signal_group(process.pid, signal.SIGKILL)
        with anyio.move_on_after(DRAIN_SECONDS):
            await pipes_closed.wait()
        tasks.cancel_scope.cancel()
    stderr.finish()


async def _feed(process: subprocess.Popen[bytes], data: bytes) -> None:
    assert process.stdin is not None
    fd = process.stdin.fileno()
    os.set_blocking(fd, False)
    view = memoryview(data)
    try:
        while view:
            await anyio.wait_writable(fd)
            try:
                view = view[os.write(fd, view) :]
            except BlockingIOError:
                continue
    except (BrokenPipeError, ConnectionResetError):
        pass  # the script did not read its input; that is its choice
    finally:
        process.stdin.close()


async def _drain(fd: int, sink: Callable[[bytes], None]) -> None:
    os.set_blocking(fd, False)
    while True:
        await anyio.wait_readable(fd)
        try:
            chunk = os.read(fd, READ_CHUNK)
        except BlockingIOError:
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
    """SIGTERM the group, give it a grace period, then SIGKILL whatever is left."""
    if process.poll() is None:
        _signal_group(process.pid, signal.SIGTERM)
        with anyio.move_on_after(KILL_GRACE_SECONDS):
            await _wait_for_exit(process)
    _signal_group(process.pid, signal.SIGKILL)
    if process.poll() is None:
        await _wait_for_exit(process)
    _live_groups.discard(process.pid)


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
    for pgid in list(_live_groups):
        _signal_group(pgid, signal.SIGKILL)
    _live_groups.clear()


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
