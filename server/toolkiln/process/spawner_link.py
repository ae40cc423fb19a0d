"""The channel to a spawner (`spawner_main.py`) or a runner's resident (`runner_main.py`),
as `spawner_wire.py` frames it: many requests on the way at once, each answer handed to
whoever waits for it by its id, and each main process's exit as the spawner says it,
unasked. Whoever waits reads: an event loop by a reader on the socket, made by the first
wait of one of its tasks and kept between waits (no thread, no blocking: a call waits as
for any other I/O), a thread with no event loop by reading itself; either hands on what
it reads to the others, or runs what was asked to run when it comes (`when_done`)."""

from __future__ import annotations

import array
import asyncio
import contextlib
import functools
import itertools
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from toolkiln.process.readiness import readable
from toolkiln.process.spawner_pending import Pending, SpawnerGone, answer_of
from toolkiln.process.spawner_wire import Inbox, pack

_MAIN = Path(__file__).with_name("spawner_main.py")
_DONTWAIT = int(socket.MSG_DONTWAIT)  # an int: combining flag enums costs ~1 us a read


class Spawner:
    """One spawner process and the socket to it."""

    def __init__(self, channel: socket.socket | None = None, process: Any = None) -> None:
        """A new spawner process; or (`runners.py`) one already started, reached by `channel`."""
        if channel is None:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            with theirs:
                process = subprocess.Popen(
                    [sys.executable, "-I", "-S", str(_MAIN), str(theirs.fileno())],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    pass_fds=[theirs.fileno()],
                    env={},  # each process gets its environment with its request; the spawner needs none
                    start_new_session=True,  # a terminal's Ctrl-C is the server's, not the spawner's
                )
            channel = ours
        self.process = process
        self.channel = channel
        self.devnull = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        self.gone = False
        # A runner's (`runners.py`): whatever it started dies with it, so a request it may
        # have received before it died can be asked of a new one; and its pids are those of
        # a PID namespace of its own (the pidfd that comes with a start says which process).
        self.replayable = self.foreign = process is not None and not isinstance(process, subprocess.Popen)
        self._inbox = Inbox()
        self._ids = itertools.count(1)
        self._asked: dict[int, Pending] = {}  # by request id
        self._exits: dict[int, Pending] = {}  # by main process, until it has exited
        self._lock = threading.Lock()  # the tables above, `_loops`, `gone`
        self._sending = threading.Lock()  # one message at a time on the stream
        self._reading = threading.Lock()
        self._loops: dict[asyncio.AbstractEventLoop, int] = {}  # with a reader on the socket: waiting there
        self.stopped = self._closed = False  # stopped: by `stop`, not killed
        if self.request(("hello",)) != ("ok", True):
            self.stop()
            raise OSError(0, "its helper cannot run here (not x86-64, or memory files may not be executed)")

    def post(self, message: tuple[Any, ...], fds: Sequence[int] = (), *, answer: bool = True) -> Pending:
        """Send `message` (with `fds`); what comes of it (`answer=False`: nothing will)."""
        pending = Pending(start=message[0] == "spawn")
        if pending.start:
            pending.exit = Pending()
        with self._lock:
            if self.gone:
                raise SpawnerGone("the spawner has gone")
            ident = next(self._ids) if answer else 0
            if answer:
                self._asked[ident] = pending
        packet = pack((ident, *message), len(fds))
        rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
        sent = 0
        try:
            with self._sending:
                while sent < len(packet):
                    try:  # the fds go with the packet's first byte
                        sent += self.channel.sendmsg([packet[sent:]], rights if sent == 0 else [])
                    except (BlockingIOError, InterruptedError):
                        # A loop that watches the socket may have made it non-blocking (uvloop):
                        # wait as a blocking send would (poll: fds may pass select's 1,024).
                        writable = select.poll()
                        writable.register(self.channel, select.POLLOUT)
                        writable.poll()
        except OSError as error:
            with self._lock:
                self._asked.pop(ident, None)
            self._lose(str(error))
            raise SpawnerGone(f"the spawner has gone ({error})", unsent=sent == 0) from None
        return pending

    def request(self, message: tuple[Any, ...], fds: Sequence[int] = ()) -> tuple[Any, ...]:
        """The answer to `message` (sent with `fds`; any fds that came with it closed); this
        thread waits (`wait` is for an event loop's task)."""
        pending = self.post(message, fds)
        self.wait_sync(pending)
        answer, received = answer_of(pending)
        for fd in received:
            os.close(fd)
        return answer

    async def wait(self, pending: Pending) -> None:
        """Until `pending` is done: the event loop reads the socket meanwhile. Its reader
        stays once the wait is over (one reader a loop, not one add and remove a wait):
        it goes when it finds nobody waiting on its loop (`_readable`), or the spawner gone."""
        if pending.done:
            return
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if pending.done:
                return
            pending.waiters.append((loop, functools.partial(_set, future)))
            if (waiting := self._loops.get(loop)) is None:
                self._forget_closed_loops()
            self._loops[loop] = (waiting or 0) + 1
        if waiting is None:
            loop.add_reader(self.channel.fileno(), self._readable, loop)
        try:
            await future
        finally:
            with self._lock:
                waiting = self._loops.get(loop)
                if waiting is not None:
                    self._loops[loop] = waiting - 1
            if waiting == 1 and self.gone:
                self._detach(loop)

    def _readable(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop's reader: read; and go when nobody waits on this loop (something came
        unasked, for another thread) or the spawner has gone (its end would fire forever)."""
        self.pump()
        if self.gone or not self._loops.get(loop):
            self._detach(loop)

    def _detach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Remove `loop`'s reader (on its thread); once stopped, the last one closes the socket."""
        with self._lock:
            if self._loops.pop(loop, None) is None:
                return
            close = not self._loops and self.stopped
        loop.remove_reader(self.channel.fileno())
        if close:
            self._close()

    def _forget_closed_loops(self) -> None:  # their readers went with their selectors
        for closed in [each for each in self._loops if each.is_closed()]:
            del self._loops[closed]

    def wait_sync(self, pending: Pending) -> None:
        """Until `pending` is done: this thread reads the socket meanwhile (or finds that
        another has, and handed it on)."""
        while not pending.done:
            self.pump()
            if not pending.done:
                with contextlib.suppress(OSError, ValueError):
                    readable([self.channel.fileno()], 0.01)

    def pump(self) -> None:
        """Read what the spawner has said, and hand each answer and exit to whoever waits
        for it. Any thread may: one reads at a time, the others find it done."""
        if not self._reading.acquire(blocking=False):
            return
        try:
            if self.gone:
                return
            end = None
            while True:
                try:
                    if not self._inbox.read(self.channel, _DONTWAIT):
                        end = "end of stream"
                        break
                except (BlockingIOError, InterruptedError):
                    break
                except OSError as error:
                    end = str(error)
                    break
                if not self._inbox.more:
                    break
            try:
                for message, fds in self._inbox.messages():
                    self._dispatch(message, fds)
            except Exception as error:  # what no spawner of ours says: it is not ours to trust
                end = f"it said what it never says ({error!r})"
            if end is not None:
                self._lose(end)
        finally:
            self._reading.release()

    def _dispatch(self, message: tuple[Any, ...], fds: list[int]) -> None:
        ident = message[0]
        with self._lock:
            if ident == 0:  # said unasked: ("exit", main process, exit code)
                pending, value = self._exits.pop(message[2], None), message[3]
            else:
                pending, value = self._asked.pop(ident, None), message[1:]
                if pending is not None and pending.exit is not None and value[0] == "ok":
                    self._exits[value[1]] = pending.exit
        if pending is None:
            for fd in fds:
                os.close(fd)
            return
        self._settle(pending, value, fds, None)
        if pending.exit is not None and value[0] != "ok":  # it never ran: no exit will come
            self._settle(pending.exit, None, [], None)

    def _settle(self, pending: Pending, value: Any, fds: list[int], gone: SpawnerGone | None) -> None:
        with self._lock:
            pending.value, pending.fds, pending.gone = value, fds, gone
            pending.done = True
            waiters, pending.waiters = pending.waiters, []
        here = asyncio._get_running_loop()
        for loop, callback in waiters:
            if loop is here:
                callback()
            else:
                with contextlib.suppress(RuntimeError):  # that loop has closed
                    loop.call_soon_threadsafe(callback)

    def when_done(self, pending: Pending, callback: Callable[[], None]) -> None:
        """Call `callback` on this event loop once `pending` is done (at once if it is), no
        task woken: soon after the answer is read (the loop reads while a task of it waits)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if not pending.done:
                pending.waiters.append((loop, functools.partial(loop.call_soon, callback)))
                return
        callback()

    def _lose(self, reason: str) -> None:
        """The spawner has gone: whatever waits for it is told so."""
        with self._lock:
            self.gone = True
            asked = list(self._asked.values())
            # the exits of starts not yet answered after their answers (`SpawnedProcess`)
            left = [*asked, *self._exits.values(), *(each.exit for each in asked if each.exit is not None)]
            self._asked.clear()
            self._exits.clear()
        for pending in left:
            self._settle(pending, None, [], SpawnerGone(f"the spawner has gone ({reason})", unsent=False))

    def stop(self) -> None:
        """End the stream: the spawner kills what it still holds and exits. The socket is
        closed once no event loop reads it (a loop's reader on a closed fd would outlive it):
        at once, or by the last loop's reader, which the end of the stream wakes."""
        self.stopped = True
        self._lose("stopped")
        with contextlib.suppress(OSError):
            self.channel.shutdown(socket.SHUT_RDWR)  # each loop's reader fires, finds it gone, goes
        here = asyncio._get_running_loop()
        if here is not None and self._loops.get(here) == 0:
            self._detach(here)  # this loop's, idle: now (it may close before its reader fires)
        with self._lock:
            self._forget_closed_loops()
            close = not self._loops
        if close:
            self._close()
        if isinstance(self.process, subprocess.Popen):
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)
        elif self.process is not None:  # a runner's bubblewrap, started by the spawner
            self.process.signal_group(signal.SIGKILL)  # its resident has killed what it held
            self.process.wait()

    def _close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self.channel.close()
        os.close(self.devnull)
        self._inbox.close()

    def forget(self) -> None:
        """In a forked copy of this process: close our copies only (the parent's stay open)."""
        self.gone = self._closed = True
        with contextlib.suppress(OSError):
            self.channel.close()
            os.close(self.devnull)


def _set(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
