"""`SpawnedProcess`: what the rest of `process` holds of a process the spawner (or a
runner) started, as it would hold a `subprocess.Popen`."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
from typing import IO, TYPE_CHECKING

from toolkiln.process.readiness import readable
from toolkiln.process.spawner_link import Pending, SpawnerGone

if TYPE_CHECKING:
    from toolkiln.process.spawner_link import Spawner

logger = logging.getLogger(__name__)


class SpawnedProcess:
    """A process the spawner started, as `subprocess.Popen` would show it: pid, pipes,
    `poll`, `wait`, `returncode`; `wait_exit` for an event loop's task; and `signal_group`,
    which the spawner carries out only while its main process is there. Its exit comes
    from the spawner unasked (`exit`); `pidfd`, sent with the start's answer while it was
    an unreaped child of the spawner, is the server's own hold on it."""

    def __init__(
        self, spawner: Spawner, pid: int, pidfd: int, exit: Pending,
        stdin: int | None, stdout: int | None, stderr: int | None,
    ) -> None:  # fmt: skip
        self._spawner = spawner
        self._pidfd = pidfd
        self._exit = exit
        # Started by a runner (`runners.py`): `pid` is in the runner's PID namespace, its
        # pidfd says which process it is here; the runner is asked about it by `ref`.
        self.ref = pid
        self.pid = _pid_of(pidfd) if spawner.foreign else pid
        self.stdin: IO[bytes] | None = None if stdin is None else open(stdin, "wb", buffering=0)  # noqa: SIM115
        self.stdout: IO[bytes] | None = None if stdout is None else open(stdout, "rb", buffering=0)  # noqa: SIM115
        self.stderr: IO[bytes] | None = None if stderr is None else open(stderr, "rb", buffering=0)  # noqa: SIM115
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            if not self._exit.done:
                self._spawner.pump()  # what it has said meanwhile, without waiting
            if self._exit.done:
                self._ended()
        return self.returncode

    async def wait_exit(self) -> int:
        """Its exit code, once the spawner has said it (or has gone: then it is killed)."""
        if self.returncode is None:
            await self._spawner.wait(self._exit)
            self._ended()
        assert self.returncode is not None
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            self._spawner.wait_sync(self._exit)
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
        if self.returncode is None and not self._exit.done:
            try:
                self._spawner.post(("signal", self.ref, int(signum)), answer=False)
            except SpawnerGone:  # killed under it: the group is ours to signal (init reaps it now)
                if not self._spawner.foreign:  # a runner's call ended with the runner's namespaces
                    self._kill_group(signum)


def _pid_of(pidfd: int) -> int:
    """The pid, in this process's PID namespace, of the process `pidfd` refers to."""
    with open(f"/proc/self/fdinfo/{pidfd}") as info:
        for line in info:
            if line.startswith("Pid:"):
                return int(line.split()[1])
    raise OSError(0, "no pid for a pidfd")
