"""The spawner's pipelined protocol (process/spawner_wire.py, spawner_link.py): many
requests on the way at once, answers and exits handed to whoever waits, in any thread or
event loop; a spawner killed with many calls in flight ends them all at once."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading

import anyio
import pytest

from toolkiln.process import run_process
from toolkiln.process.spawner import spawner
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
