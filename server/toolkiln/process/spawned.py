"""`SpawnedProcess`: what the rest of `process` holds of a process the spawner (or a
runner) started, as it would hold a `subprocess.Popen`."""

from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
from typing import IO, TYPE_CHECKING, cast

from toolkiln.process.spawner_link import SpawnerGone

if TYPE_CHECKING:
    from toolkiln.process.spawner_link import Spawner

logger = logging.getLogger(__name__)


class SpawnedProcess:
    """A process the spawner started, as `subprocess.Popen` would show it: pid, pipes,
    `poll`, `wait`, `returncode`; and `signal_group`, which the spawner carries out only
    while its main process is there. The spawner reaps it only when `poll` asks, so while
    `returncode` is None its pid cannot have been reused: a pidfd opened then is its own."""

    def __init__(
        self, spawner: Spawner, pid: int, stdin: int | None, stdout: int | None, stderr: int | None,
        pidfd: int | None = None,
    ) -> None:  # fmt: skip
        self._spawner = spawner
        # Started by a runner (`runners.py`): `pid` is in the runner's PID namespace, its
        # pidfd says which process it is here; the runner is asked about it by `ref`.
        self._pidfd = pidfd
        self.ref = pid
        self.pid = pid if pidfd is None else _pid_of(pidfd)
        self.stdin: IO[bytes] | None = None if stdin is None else open(stdin, "wb", buffering=0)  # noqa: SIM115
        self.stdout: IO[bytes] | None = None if stdout is None else open(stdout, "rb", buffering=0)  # noqa: SIM115
        self.stderr: IO[bytes] | None = None if stderr is None else open(stderr, "rb", buffering=0)  # noqa: SIM115
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                answer = self._spawner.request(("status", self.ref))
            except SpawnerGone:
                answer = ("ok", -signal.SIGKILL)  # it killed what it held as it went
            if answer[1] is not None:
                self.returncode = cast(int, answer[1])
                if self._pidfd is not None:
                    os.close(self._pidfd)
                    self._pidfd = None
        return self.returncode

    def spawner_pidfd(self) -> int | None:
        """A pidfd of the spawner (or runner) that started it, or None (the caller closes it)."""
        return self._spawner.open_pidfd()

    def lost_spawner(self, pidfd: int) -> None:
        """Its spawner died under it: end the call now, killed, and say so. A runner's
        call died with the runner's namespaces; a spawner's main process still runs, not
        reaped by anyone that would reuse its pid while its pidfd (`pidfd`) is open: it and,
        while it lives, its group go."""
        if self.returncode is not None:
            return
        logger.error(
            "the %s that started process %d was killed (a tool running as the same user can): "
            "the call is ended; the next one starts a new one",
            "spawner" if self._pidfd is None else "confined runner", self.pid,
        )  # fmt: skip
        self._spawner.gone = True
        if self._pidfd is None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                if not select.select([pidfd], [], [], 0)[0]:  # still there: its group is its own
                    os.killpg(self.pid, signal.SIGKILL)
        self.returncode = -signal.SIGKILL

    def open_pidfd(self) -> int:
        """A pidfd of the main process (the caller closes it); only while it is not reaped."""
        return os.pidfd_open(self.pid) if self._pidfd is None else os.dup(self._pidfd)

    def wait(self) -> int:
        if self.poll() is None:
            # The spawner reaps it only when asked (poll): until then its pid is its own.
            pidfd = self.open_pidfd()
            try:
                while self.poll() is None:
                    select.select([pidfd], [], [])
            finally:
                os.close(pidfd)
        assert self.returncode is not None
        return self.returncode

    def signal_group(self, signum: int) -> None:
        if self.returncode is None:
            try:
                self._spawner.request(("signal", self.ref, int(signum)))
            except SpawnerGone:  # killed under it: the group is ours to signal (init reaps it now)
                if self._pidfd is None:  # a runner's call ended with the runner's namespaces
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(self.pid, signum)


def _pid_of(pidfd: int) -> int:
    """The pid, in this process's PID namespace, of the process `pidfd` refers to."""
    with open(f"/proc/self/fdinfo/{pidfd}") as info:
        for line in info:
            if line.startswith("Pid:"):
                return int(line.split()[1])
    raise OSError(0, "no pid for a pidfd")
