"""`SpawnedProcess`: what the rest of `process` holds of a process the spawner (or a
runner) started, as it would hold a `subprocess.Popen`."""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import signal
import subprocess
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from toolkiln.process.readiness import readable
from toolkiln.process.spawner_pending import Pending, SpawnerGone, answer_of

if TYPE_CHECKING:
    from toolkiln.process.spawner_link import Spawner

logger = logging.getLogger(__name__)


class SpawnedProcess:
    """A process the spawner started, as `subprocess.Popen` would show it: pid, pipes,
    `poll`, `wait`, `returncode`; `wait_exit` for an event loop's task; and `signal_group`,
    which the spawner carries out only while its main process is there. Its exit comes
    from the spawner unasked (`exit`); `pidfd`, sent with the start's answer while it was
    an unreaped child of the spawner, is the server's own hold on it.

    It may be held before the start's answer has come (a pipelined start: its pipes are
    read meanwhile): the answer is taken when it comes, and a start that failed is
    `start_failure` (as `failure` makes it), which `wait_exit` returns None for and `wait`
    raises. A signal asked before the answer waits for it (`wait_started` first, on a loop)."""

    def __init__(
        self, spawner: Spawner, start: Pending,
        stdin: int | None, stdout: int | None, stderr: int | None,
        failure: Callable[[Exception], Exception] | None = None,
    ) -> None:  # fmt: skip
        assert start.exit is not None
        self._spawner = spawner
        self._start: Pending | None = start  # None once taken
        self._exit = start.exit
        self._failure = failure
        self._pidfd = -1
        # Started by a runner (`runners.py`): `pid` is in the runner's PID namespace, its
        # pidfd says which process it is here; the runner is asked about it by `ref`.
        self.ref = self.pid = 0  # known once the start's answer has come
        self.start_failure: Exception | None = None
        self._callback_error: Exception | None = None  # `when_started`'s
        self.stdin: IO[bytes] | None = None if stdin is None else open(stdin, "wb", buffering=0)  # noqa: SIM115
        self.stdout: IO[bytes] | None = None if stdout is None else open(stdout, "rb", buffering=0)  # noqa: SIM115
        self.stderr: IO[bytes] | None = None if stderr is None else open(stderr, "rb", buffering=0)  # noqa: SIM115
        self.returncode: int | None = None
        if start.done:
            self._take_start()

    def _take_start(self) -> None:
        """The start's answer, once it has come: the pid and pidfd, or why it failed."""
        start, self._start = self._start, None
        if start is None:
            return
        try:
            answer, received = answer_of(start)
            if answer[0] != "ok" or not received:
                for fd in received:
                    os.close(fd)
                raise start_error(answer)
        except Exception as error:  # SpawnerGone, or what `start_error` makes
            self.start_failure = error if self._failure is None else self._failure(error)
            return
        for fd in received[1:]:
            os.close(fd)
        self._pidfd = received[0]
        self.ref = int(answer[1])
        self.pid = _pid_of(self._pidfd) if self._spawner.foreign else self.ref

    async def wait_started(self) -> bool:
        """Until the start's answer has come: whether it started (else `start_failure`)."""
        if self._start is not None:
            if not self._start.done:
                await self._spawner.wait(self._start)
            self._take_start()
        return self.start_failure is None

    def when_started(self, callback: Callable[[], None]) -> None:
        """Run `callback` once the start's answer has come and says it runs (at once if it
        has), with no task woken for it: on this event loop, in this context, while a task
        waits for its exit. What it raises, `raise_failure` raises."""
        context = contextvars.copy_context()

        def started() -> None:
            try:
                self._take_start()
                if self.start_failure is None:
                    context.run(callback)
            except Exception as error:  # raised by raise_failure, not in the spawner's reader
                self._callback_error = error

        if self._start is None:
            started()
        else:
            self._spawner.when_done(self._start, started)

    def _check_started(self) -> None:
        self._take_start()
        if self.start_failure is not None:
            raise self.start_failure

    def poll(self) -> int | None:
        """Its exit code once it has exited; None before (and for a start that failed)."""
        if self.returncode is None:
            if not self._exit.done:
                self._spawner.pump()  # what it has said meanwhile, without waiting
            if self._exit.done:
                self._take_start()
                if self.start_failure is None:
                    self._ended()
        return self.returncode

    async def wait_exit(self) -> int | None:
        """Its exit code, once the spawner has said it (or has gone: then it is killed);
        None when it never ran (`start_failure` says why: `raise_failure`)."""
        if self.returncode is None:
            await self._spawner.wait(self._exit)  # a start that failed ends it too
            self._take_start()
            if self.start_failure is None:
                self._ended()
        return self.returncode

    def raise_failure(self) -> None:
        """Raise why it never ran (its start failed), or what `when_started`'s callback raised."""
        self._take_start()
        failure = self.start_failure or self._callback_error
        if failure is not None:
            raise failure

    def wait(self) -> int:
        if self.returncode is None:
            self._spawner.wait_sync(self._exit)
            self._check_started()
            self._ended()
        assert self.returncode is not None
        return self.returncode

    def _ended(self) -> None:
        if self.returncode is not None:
            return
        if self._exit.gone is not None:
            self._lost_spawner()
        else:
            self.returncode = int(self._exit.value)
        os.close(self._pidfd)

    def _lost_spawner(self) -> None:
        """Its spawner died under it: end the call now, killed, and say so. A runner's
        call died with the runner's namespaces; a spawner's main process still runs, not
        reaped by anyone that would reuse its pid while its pidfd is open: it and, while
        it lives, its group go."""
        log = logger.debug if self._spawner.stopped else logger.error  # stopped: the server is stopping
        log(
            "the %s that started process %d was killed (a tool running as the same user can): "
            "the call is ended; the next one starts a new one",
            "confined runner" if self._spawner.foreign else "spawner", self.pid,
        )  # fmt: skip
        if not self._spawner.foreign:
            self._kill_group(signal.SIGKILL)
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
        self.returncode = -signal.SIGKILL

    def _kill_group(self, signum: int) -> None:
        """Signal its group ourselves, only while its main process lives (so the group's id is its own)."""
        with contextlib.suppress(OSError):
            if not readable([self._pidfd], 0):
                os.killpg(self.pid, signum)

    def signal_group(self, signum: int) -> None:
        if self._start is not None:  # asked before the answer came: it comes first
            self._spawner.wait_sync(self._start)
            self._take_start()
        if self.returncode is None and self.start_failure is None and not self._exit.done:
            try:
                self._spawner.post(("signal", self.ref, int(signum)), answer=False)
            except SpawnerGone:  # killed under it: the group is ours to signal (init reaps it now)
                if not self._spawner.foreign:  # a runner's call ended with the runner's namespaces
                    self._kill_group(signum)

    def close_pipes(self) -> None:
        for pipe in (self.stdin, self.stdout, self.stderr):
            if pipe is not None:
                pipe.close()


def start_error(answer: tuple[Any, ...]) -> Exception:
    """A start's failure, as its answer says it: OSError as Popen raises it (errno,
    strerror); SubprocessError for a limit that could not be set; ValueError for a NUL."""
    if answer[0] == "ok":  # no pidfd came with it
        return OSError(0, "the spawner sent no pidfd")
    number, message = int(answer[1]), str(answer[2])
    stage, _, reason = message.partition(" ")
    if stage == "limits":
        return subprocess.SubprocessError(f"setting its limits failed: {reason}")
    if stage == "value":
        return ValueError(reason)
    return OSError(number, os.strerror(number) if number else message)


def _pid_of(pidfd: int) -> int:
    """The pid, in this process's PID namespace, of the process `pidfd` refers to."""
    with open(f"/proc/self/fdinfo/{pidfd}") as info:
        for line in info:
            if line.startswith("Pid:"):
                return int(line.split()[1])
    raise OSError(0, "no pid for a pidfd")
