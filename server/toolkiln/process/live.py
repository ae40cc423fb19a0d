"""`LiveProcess`: a long-lived child that answers line by line (a warm worker)."""

from __future__ import annotations

import contextlib
import logging
import math
import os
import resource
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import anyio

from toolkiln.process.confine import Confinement, confined_pid, exit_status
from toolkiln.process.groups import close_pipes, stop_group, wait_for_exit
from toolkiln.process.pipes import READ_CHUNK, StderrLineHandler, StderrReader, decode, drain, write_all
from toolkiln.process.spawn import start_process

if TYPE_CHECKING:
    from toolkiln.model import Limits

logger = logging.getLogger(__name__)

_WORKER_START_POLLS = 500  # of 2 ms: how long bubblewrap may take to start a worker


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
        confinement: Confinement | None = None,
    ) -> None:
        # RLIMIT_CPU counts a process's whole life: a worker gets a budget per request instead.
        self.cpu_seconds = limits.cpu_seconds if limits else None
        limits = limits.model_copy(update={"cpu_seconds": None}) if limits else None
        self._process = start_process(
            argv,
            piped_stdin=True,
            cwd=cwd,
            env=env,
            limits=limits,
            confinement=confinement,
            resident=False,  # its pid is read from bwrap's (`confined_pid`); it runs long
        )
        self._confined = confinement is not None
        self._worker_pid: int | None = None if self._confined else self._process.pid
        assert self._process.stdin and self._process.stdout and self._process.stderr
        self._stdin, self._stdout, self._stderr = (
            self._process.stdin.fileno(), self._process.stdout.fileno(), self._process.stderr.fileno()
        )  # fmt: skip
        for fd in (self._stdin, self._stdout, self._stderr):
            os.set_blocking(fd, False)
        self._pending = bytearray()
        self._stderr_reader = StderrReader(16 * 1024, None)
        logger.debug("started %s in %s: pid %d", list(argv), cwd, self._process.pid)

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        code = self._process.poll()
        return exit_status(code) if self._confined else code

    async def _worker(self) -> int | None:
        """The pid of the worker itself: inside bubblewrap, bwrap's grandchild (found
        once it has started it), so that its CPU time is the worker's."""
        for _ in range(_WORKER_START_POLLS):
            if self._worker_pid is not None or self._process.poll() is not None:
                break
            self._worker_pid = confined_pid(self._process.pid)
            if self._worker_pid is None:
                await anyio.sleep(0.002)
        return self._worker_pid

    @property
    def stderr_tail(self) -> str:
        """The last 16 KiB it wrote to stderr."""
        return decode(bytes(self._stderr_reader.tail.data))

    async def send(self, data: bytes) -> None:
        """Write all of `data` to its stdin (BrokenPipeError when it has gone), after giving
        it `cpu_seconds` more CPU time than it has used so far, when it has such a limit."""
        if self.cpu_seconds is not None and (worker := await self._worker()) is not None:
            with contextlib.suppress(OSError):  # it has gone: reading its answer finds out
                budget = math.ceil(_cpu_time(worker)) + self.cpu_seconds
                # Only the soft limit moves (SIGXCPU): raising a hard limit needs privileges.
                _, hard = resource.prlimit(worker, resource.RLIMIT_CPU)
                resource.prlimit(
                    worker,
                    resource.RLIMIT_CPU,
                    (budget if hard == resource.RLIM_INFINITY else min(budget, hard), hard),
                )
        await write_all(self._stdin, data)

    async def read_line(self, limit: int, on_stderr_line: StderrLineHandler | None) -> bytes | None:
        """The next stdout line (without its newline), or None when stdout closed; its
        stderr lines meanwhile go to `on_stderr_line`."""
        self._stderr_reader.on_line = on_stderr_line
        line: bytes | LineTooLong | None = None
        try:
            async with anyio.create_task_group() as readers:
                readers.start_soon(drain, self._stderr, self._stderr_reader.add)
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
            try:  # read first, wait only when there is nothing yet (as drain does)
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
            await stop_group(self._process)
            close_pipes(self._process)

    async def wait(self, timeout: float) -> int | None:
        """Its exit code, once it exits within `timeout` seconds (None if it does not)."""
        with anyio.move_on_after(timeout):
            await wait_for_exit(self._process)
        return self._process.poll()
