"""`run_process`: one run of a program to its end (a tool call, a probe), with a
timeout, capped output and its whole group stopped when it ends."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio
from anyio.abc import ObjectReceiveStream

from toolkiln.errors import ProcessStartError
from toolkiln.process.confine import Confinement, exit_status
from toolkiln.process.groups import close_pipes, stop_group, wait_for_exit
from toolkiln.process.pipes import CappedBuffer, PipeReaders, StderrLineHandler, StderrReader, decode, feeding
from toolkiln.process.spawn import start_process_async
from toolkiln.process.spawner import Child, SpawnedProcess

if TYPE_CHECKING:
    from toolkiln.model import Limits

logger = logging.getLogger(__name__)

# After the main process exits, how long its pipes may stay open (held by a child
# that escaped the group) before we stop reading.
DRAIN_SECONDS = 1.0


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
    confinement: Confinement | None = None,
) -> ProcessResult:
    """Run `argv` to completion or until `timeout` seconds, whichever comes first.

    stdin gets `input`, then each chunk `more_input` brings (an interactive script's
    answers) until that stream ends; without either, stdin is /dev/null.

    `limits` become the child's rlimits (see `rlimit_preexec`); its `max_output_bytes`
    is the caller's business (pass it as `stdout_limit`). `on_started` runs once the
    process does (the spawner has answered its start; its pipes are read meanwhile):
    the caller's work done while the script runs is off the call's path.
    With `confinement`, the process runs inside bubblewrap (see `confine.py`).
    Raises `ProcessStartError` when the program cannot be started at all.
    Cancelling the caller stops the process group before the cancellation continues.
    """
    started = time.perf_counter()
    piped = input is not None or more_input is not None
    process = await start_process_async(
        argv, piped_stdin=piped, cwd=cwd, env=env, limits=limits, confinement=confinement
    )
    stdout = CappedBuffer(stdout_limit)
    stderr = StderrReader(stderr_limit, on_stderr_line)
    timed_out = False
    try:
        with anyio.move_on_after(timeout) as deadline:
            await _communicate(process, input, more_input, stdout, stderr, on_started)
        timed_out = deadline.cancelled_caught
    finally:
        if not (isinstance(process, SpawnedProcess) and process.returncode is not None):  # else it is done
            with anyio.CancelScope(shield=True):
                await stop_group(process)
        close_pipes(process)
    if isinstance(process, SpawnedProcess):
        process.raise_failure()  # the spawner's answer said it never ran (after a timeout too)
    duration = time.perf_counter() - started
    returncode = process.returncode
    if confinement is not None:
        returncode = exit_status(returncode)
        if returncode == 1 and stderr.tail.data.startswith(b"bwrap: "):  # it could not start the program
            reason = decode(bytes(stderr.tail.data)).splitlines()[0].removeprefix("bwrap: ")
            raise ProcessStartError(f"cannot start {argv[0]}: {reason.removeprefix('execvp ')}")
    logger.debug(
        "ran %s in %s: exit %s in %.1f ms%s",
        list(argv), cwd or ".", returncode, duration * 1000, " (timed out)" if timed_out else "",
    )  # fmt: skip
    return ProcessResult(
        argv=tuple(argv),
        returncode=None if timed_out else returncode,
        stdout=bytes(stdout.data),
        stdout_total=stdout.total,
        stderr_tail=bytes(stderr.tail.data),
        stderr_total=stderr.tail.total,
        timed_out=timed_out,
        duration=duration,
    )


async def _communicate(
    process: Child,
    input: bytes | None,
    more_input: ObjectReceiveStream[bytes] | None,
    stdout: CappedBuffer,
    stderr: StderrReader,
    on_started: Callable[[], None] | None,
) -> None:
    assert process.stdout is not None and process.stderr is not None
    readers = PipeReaders({process.stdout.fileno(): stdout.add, process.stderr.fileno(): stderr.add})
    try:
        async with feeding(process, input or b"", more_input):
            if isinstance(process, SpawnedProcess) and on_started is not None:
                process.when_started(on_started)  # once the spawner has answered, the pipes read meanwhile
            elif on_started is not None:
                on_started()
            await wait_for_exit(process)
            # The call is over when the main process is; anything it left behind in
            # its group, or that escaped it, goes now, which also closes the pipes those held.
            await stop_group(process)
            if readers.open:  # usually not: a short script's output ends with it
                with anyio.move_on_after(DRAIN_SECONDS):
                    await readers.closed()
    finally:
        readers.stop()
    stderr.finish()
