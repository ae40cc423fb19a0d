"""The resident: the spawner (`spawner_main.py`) of one confinement profile, run inside
that profile's long-lived bubblewrap (`runners.py` starts it), so that a confined call
costs a fork-free start instead of a bubblewrap start.

    python -I -S runner_main.py 0 NETWORK PRIVATE...   (the channel to the server is fd 0)

Each call runs in a cell (`cell.py`): namespaces of its own, made before the call comes
(the next one is made as soon as the last was taken), with no capability, a fresh /tmp
and /proc, PID 1 of its own. The resident answers a start with the cell's keeper as the
call's main process, and a pidfd of it (the server cannot see this PID namespace's pids).
Everything else (signals to the group, exit statuses, killing what a call left, ending
every call when the server's end of the channel closes) is the spawner's, unchanged.
The resident is not dumpable: nothing in the profile may ptrace it or read its memory.
"""

import collections
import contextlib
import ctypes
import fcntl
import os
import signal
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run as a script, by path
import cell  # type: ignore[import-not-found]
import cell_kernel  # type: ignore[import-not-found]
import spawner_main  # type: ignore[import-not-found]

# Cells kept ready (or being emptied) beside those in use: concurrent calls (a discovery
# probes 4 scripts at a time) each find one while the last ones are emptied.
READY_CELLS = 8
IDLE_SECONDS = 0.002  # no request for this long: a cell is made
Cell = tuple[int, socket.socket, int]  # keeper, socket to it and its init, init's pidfd (or -1)


class Resident(spawner_main.Spawner):  # type: ignore[misc]
    """The spawner, its loop and its wire, with a cell for each call (its hooks below)."""

    def __init__(self, channel: socket.socket, wakeup: int, private: list[str], network: bool) -> None:
        super().__init__(channel, wakeup)
        self.private = private
        self.network = network
        self.home = cell_kernel.home_namespaces(network)
        helpers: tuple[str, ...] | None = self.helpers  # type: ignore[has-type]
        if helpers is not None:  # by a path that names them inside a cell too (its own /proc)
            moved = [fcntl.fcntl(int(path.rsplit("/", 1)[1]), fcntl.F_DUPFD_CLOEXEC, 10) for path in helpers]
            self.helpers = tuple(f"/proc/self/fd/{fd}" for fd in moved)
        # Cells ready for a call, oldest first: keeper, socket to it and its init, init's pidfd
        # (-1 until the init has said it is ready: a new cell).
        self.ready_cells: collections.deque[Cell] = collections.deque()
        self.cells: dict[int, Cell] = {}  # main process -> the cell it runs in
        self.emptying: dict[int, Cell] = {}  # socket fd -> a cell whose init empties it

    def answer_one(self, ident: int, request: tuple[object, ...], fds: list[int]) -> object:
        if request[0] == "busy":  # whether a call still runs (a runner with none may be ended)
            return ("ok", bool(self.running or self.starting))
        if request[0] == "hello":  # and a trial cell: where none can be made, calls start bubblewrap
            return ("ok", self.helpers is not None and _cell_works(self.private, self.network))
        return super().answer_one(ident, request, fds)

    def prepare(self, count: int = READY_CELLS) -> None:
        for _ in range(count):
            if len(self.ready_cells) + len(self.emptying) >= READY_CELLS:
                return
            self.make_cell()

    def make_cell(self) -> None:
        if self.helpers is not None:
            keeper, link = cell.make_cell(self.private, self.network)  # a fork: the keeper does the rest
            self.ready_cells.append((keeper, link, -1))
            self.spared.add(keeper)

    # The loop's hooks: cells being emptied are watched; cells are made while no request
    # waits (a fork here delays the answer to whatever comes meanwhile), or at once when
    # none is left. Cells being emptied come back ready: they count, or cells would be
    # made and ended in turn.
    def watched(self) -> list[int]:
        return list(self.emptying)

    def ready(self, fd: int) -> None:
        self.emptied(fd)

    def idle_seconds(self) -> float | None:
        return IDLE_SECONDS if len(self.ready_cells) + len(self.emptying) < READY_CELLS else None

    def idle(self) -> None:
        self.prepare(1)

    def start(self, request: tuple[object, ...], fds: list[int]) -> object:
        """Start the call's program inside a ready cell: this process enters the cell's
        namespaces, starts it as the spawner does (the helper, by posix_spawn), and leaves."""
        if not self.ready_cells:
            self.make_cell()
        if not self.ready_cells:
            return ("error", 0, "resident: its helper cannot run here")
        keeper, link, init = self.ready_cells.popleft()
        if init < 0:
            try:
                init = os.pidfd_open(cell.cell_init(link))
            except OSError as error:
                _kill_cell((keeper, link, -1))
                return ("error", error.errno or 0, f"resident: {error.strerror or error}")
        cell_kernel.enter(init, self.network)
        try:
            started = super().start(request, fds)
        finally:
            cell_kernel.leave(self.home)
        if isinstance(started, tuple):
            self.ready_cells.appendleft((keeper, link, init))  # nothing ran in it
        else:
            self.cells[started[1]] = (keeper, link, init)
        return started

    def not_started(self, pid: int) -> None:
        self.ready_cells.appendleft(self.cells.pop(pid))  # its exec failed: nothing ran in it

    def exited(self, pid: int, code: int) -> None:
        """As the spawner's, and: its cell is emptied (everything left in it killed) and
        made ready for the next call."""
        super().exited(pid, code)
        if pid in self.cells:
            keeper, link, init = self.cells.pop(pid)
            try:
                link.sendall(b"C")
                self.emptying[link.fileno()] = (keeper, link, init)
            except OSError:
                _kill_cell((keeper, link, init))

    def emptied(self, fd: int) -> None:
        """A cell's init says it has emptied the cell (b"R"), or has gone."""
        keeper, link, init = self.emptying.pop(fd)
        try:
            word = link.recv(1)
        except OSError:
            word = b""
        if word == b"R" and len(self.ready_cells) < READY_CELLS:
            self.ready_cells.appendleft((keeper, link, init))
        else:
            _kill_cell((keeper, link, init))

    def check_children(self, pids: list[int] | None = None) -> None:
        """As the spawner's, and: keepers of cells that have ended are reaped."""
        super().check_children(pids)
        alive = {
            keeper for keeper, _, _ in [*self.ready_cells, *self.cells.values(), *self.emptying.values()]
        }
        for keeper in list(self.spared - alive):
            try:
                done, _ = os.waitpid(keeper, os.WNOHANG)
            except ChildProcessError:
                done = keeper
            if done:
                self.spared.discard(keeper)

    def kill_everything(self) -> None:
        for each in [*self.ready_cells, *self.cells.values(), *self.emptying.values()]:
            _kill_cell(each)
        self.ready_cells.clear()
        self.cells.clear()
        self.emptying.clear()
        super().kill_everything()


def _cell_works(private: list[str], network: bool) -> bool:
    keeper, link = cell.make_cell(private, network)
    try:
        init = os.pidfd_open(cell.cell_init(link))
        link.sendall(b"C")  # and it can be emptied
        works = bool(link.recv(1) == b"R")
    except OSError:
        init, works = -1, False
    _kill_cell((keeper, link, init))
    os.waitpid(keeper, 0)
    return works


def _kill_cell(each: "Cell") -> None:
    """SIGKILL a cell's init (by pidfd): the kernel kills all in the cell, and its keeper,
    once its init is gone, exits; not waited for: it is reaped later. Without an init
    (never ready), the keeper is what there is to kill."""
    keeper, link, init = each
    link.close()
    if init >= 0:
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(init, signal.SIGKILL)
        os.close(init)
    else:
        with contextlib.suppress(OSError):
            os.kill(keeper, signal.SIGKILL)


if __name__ == "__main__":
    if ctypes.CDLL(None, use_errno=True).prctl(cell_kernel.PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        sys.exit("resident: cannot make itself undumpable")
    cell_kernel.drop_inherited_capabilities()
    spawner_main.main(Resident, sys.argv[3:], sys.argv[2] == "1")
