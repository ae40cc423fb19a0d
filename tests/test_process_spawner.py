"""The spawner's pipelined protocol (process/spawner_wire.py, spawner_link.py): many
requests on the way at once, answers and exits handed to whoever waits, in any thread or
event loop; a spawner killed with many calls in flight ends them all at once."""

from __future__ import annotations

import asyncio
import contextvars
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading

import anyio
import pytest

from toolkiln.errors import ProcessStartError
from toolkiln.process import run_process
from toolkiln.process.groups import close_pipes
from toolkiln.process.spawn import start_process_async
from toolkiln.process.spawner import SpawnedProcess, spawner, stop_spawner
from toolkiln.process.spawner_wire import Inbox, send

pytestmark = pytest.mark.anyio

needs_spawner = pytest.mark.skipif(spawner() is None, reason="no spawner here (Linux x86-64 only)")


def test_each_message_gets_the_fds_sent_with_it_however_the_reads_fall() -> None:
    """Messages sent back to back, some with fds and some without, read by whatever reads
    the socket gives: each message gets its own fds, in order."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pipes = [os.pipe() for _ in range(4)]
    try:
        send(theirs, (1, "first"), [pipes[0][1]])
        send(theirs, (2, "no fds", "x" * 40_000))  # longer than one read
        send(theirs, (3, "three"), [pipes[1][1], pipes[2][1], pipes[3][1]])
        send(theirs, (0, "exit", 7, 0))
        theirs.close()
        inbox, got = Inbox(), []
        while inbox.read(ours):
            got += inbox.messages()
        assert [message[0] for message, _ in got] == [1, 2, 3, 0]
        assert [len(fds) for _, fds in got] == [1, 0, 3, 0]
        received = [(got[0][1][0], 0), (got[2][1][0], 1), (got[2][1][1], 2), (got[2][1][2], 3)]
        for fd, index in received:  # each is the write end of pipe `index`
            os.write(fd, b"%d" % index)
            assert os.read(pipes[index][0], 10) == b"%d" % index
        for _, fds in got:
            for fd in fds:
                os.close(fd)
    finally:
        ours.close()
        for read, write in pipes:
            os.close(read)
            os.close(write)


@needs_spawner
async def test_calls_from_two_event_loops_in_two_threads_share_the_spawner() -> None:
    """Discovery probes from a thread of its own (`serve --watch`) while the server's loop
    runs calls: each loop's waits are answered, whichever loop reads the socket."""
    other: list[bytes] = []

    async def probes() -> None:
        async with anyio.create_task_group() as group:
            for index in range(12):
                group.start_soon(lambda i=index: _echo(other, f"thread {i}"))

    thread = threading.Thread(target=anyio.run, args=(probes,))
    thread.start()
    here: list[bytes] = []
    async with anyio.create_task_group() as group:
        for index in range(12):
            group.start_soon(lambda i=index: _echo(here, f"loop {i}"))
    await anyio.to_thread.run_sync(thread.join)
    assert sorted(here) == sorted(f"loop {i}\n".encode() for i in range(12))
    assert sorted(other) == sorted(f"thread {i}\n".encode() for i in range(12))


@needs_spawner
async def test_a_killed_spawner_ends_every_call_in_flight_at_once() -> None:
    first = spawner()
    assert first is not None
    results = []
    started = 0
    all_started = anyio.Event()

    def one_started() -> None:
        nonlocal started
        started += 1
        if started == 6:
            all_started.set()

    async def call() -> None:
        results.append(await run_process(["sleep", "30"], timeout=20, on_started=one_started))

    async with anyio.create_task_group() as group:
        for _ in range(6):
            group.start_soon(call)
        await all_started.wait()
        first.process.kill()
    assert [(result.returncode, result.timed_out) for result in results] == [(-signal.SIGKILL, False)] * 6
    assert (await run_process(["echo", "again"], timeout=10)).stdout == b"again\n"


async def _echo(into: list[bytes], text: str) -> None:
    into.append((await run_process(["echo", text], timeout=20)).stdout)


def test_a_big_request_reaches_the_spawner_on_a_loop_that_made_its_socket_non_blocking() -> None:
    """uvloop (serve --http's loop) makes the fds it watches non-blocking: a request bigger
    than the socket's buffer is still sent whole, also when the server holds more than
    select's 1,024 fds (so the spawner's socket is past them)."""
    code = textwrap.dedent(
        """
        import os, resource, sys
        import anyio
        from toolkiln.process import run_process

        resource.setrlimit(resource.RLIMIT_NOFILE, (4096, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
        held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]  # the spawner's socket comes after

        async def main() -> None:
            value = "x" * 120_000
            for _ in range(3):
                done = await run_process(["/bin/sh", "-c", 'printf %s "$V" | wc -c', "sh", value],
                                         timeout=20, env={"V": value, "PATH": "/usr/bin:/bin"})
                print(done.returncode, done.stdout.decode().strip())

        anyio.run(main, backend_options={"use_uvloop": True})
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:3] == ["0 120000"] * 3
    assert "no spawner" not in done.stderr, done.stderr[-2000:]  # started by the spawner, not Popen


@needs_spawner
async def test_a_start_is_asked_not_waited_for_and_its_answer_comes_while_it_runs() -> None:
    """Pipelined: `start_process_async` returns once the start is asked, before the spawner
    has answered (its pid unknown yet); the answer, taken while it runs, brings its pid."""
    process = await start_process_async(
        ["sh", "-c", "echo out; exit 3"], piped_stdin=False, cwd=None, env=None, limits=None
    )
    assert isinstance(process, SpawnedProcess)
    try:
        assert process.pid == 0  # not answered yet: the pipes may be read meanwhile
        assert await process.wait_exit() == 3
        assert process.pid > 0
        assert process.stdout is not None and process.stdout.read() == b"out\n"
    finally:
        close_pipes(process)


@needs_spawner
@pytest.mark.parametrize("program", ["/nonexistent/tool", "no-such-program-anywhere"])
@pytest.mark.parametrize("timeout", [20, 0])
@pytest.mark.parametrize("input", [None, b"x" * 1_000_000])  # more than a pipe holds: a task feeds it
async def test_a_start_that_fails_raises_from_the_run_even_when_its_timeout_came_first(
    program: str, timeout: float, input: bytes | None
) -> None:
    """The spawner's answer says the exec failed after the run has gone on: the run raises
    the same `ProcessStartError` (a timeout that came before the answer too), not in an
    exception group, and `on_started` never runs."""
    started: list[bool] = []
    with pytest.raises(ProcessStartError, match=f"cannot start {program}: No such file or directory"):
        await run_process([program], timeout=timeout, input=input, on_started=lambda: started.append(True))
    assert not started


def _running(marker: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if marker.encode() in cmdline.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


@needs_spawner
async def test_a_stop_asked_before_the_spawner_answered_still_ends_the_process() -> None:
    """A timeout or a cancel that comes right after the start, before its answer: the stop
    waits for the answer, then the group is stopped (not left to its 30 s)."""
    result = await run_process(["sleep", "30.101"], timeout=0)
    assert result.timed_out and result.duration < 10
    with anyio.move_on_after(0):
        await run_process(["sleep", "30.102"], timeout=20)
    assert not _running("30.101") and not _running("30.102")  # reaped before the exit was said


@needs_spawner
async def test_on_started_runs_in_the_caller_s_context_and_what_it_raises_reaches_the_caller() -> None:
    """`on_started` runs when the spawner's answer is read, in the calling task's context
    (not the context of the loop's reader, made by an earlier call); what it raises is raised."""
    seen: list[str | None] = []
    _VARIABLE.set("first")
    await run_process(["true"], timeout=20)  # the loop's reader on the spawner is made now
    _VARIABLE.set("second")
    await run_process(["true"], timeout=20, on_started=lambda: seen.append(_VARIABLE.get(None)))
    assert seen == ["second"]

    def broken() -> None:
        raise RuntimeError("a broken on_started")

    with pytest.raises(RuntimeError, match="a broken on_started"):
        await run_process(["true"], timeout=20, on_started=broken)


_VARIABLE: contextvars.ContextVar[str] = contextvars.ContextVar("_VARIABLE")


@needs_spawner
async def test_a_loop_keeps_its_reader_between_calls_and_it_goes_with_the_spawner() -> None:
    """One reader a loop on the spawner's socket, kept between calls; a spawner killed
    between calls takes it away (its end would wake the loop forever), and a stopped
    spawner's socket is closed once its last reader has gone, stopped from any thread."""
    loop = asyncio.get_running_loop()
    first = spawner()
    assert first is not None
    for _ in range(2):
        assert (await run_process(["echo", "one"], timeout=20)).stdout == b"one\n"
        assert first._loops == {loop: 0}
    first.process.kill()
    with anyio.fail_after(10):
        while first._loops:
            await anyio.sleep(0.01)
    assert (await run_process(["echo", "two"], timeout=20)).stdout == b"two\n"
    second = spawner()
    assert second is not None and second is not first and second._loops == {loop: 0}
    await anyio.to_thread.run_sync(stop_spawner)
    with anyio.fail_after(10):
        while second.channel.fileno() != -1:
            await anyio.sleep(0.01)
    assert not second._loops
    assert (await run_process(["echo", "three"], timeout=20)).stdout == b"three\n"
    third = spawner()
    assert third is not None and third._loops == {loop: 0}
    stop_spawner()  # on this loop's thread: its idle reader goes at once (the loop may close next)
    assert third.channel.fileno() == -1 and not third._loops
