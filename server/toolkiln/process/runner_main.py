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

import array
import ctypes
import fcntl
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run as a script, by path
import spawner_main  # type: ignore[import-not-found]  # noqa: E402
from cell import PR_SET_DUMPABLE, make_cell  # type: ignore[import-not-found]  # noqa: E402


class Resident(spawner_main.Spawner):  # type: ignore[misc]
    def __init__(self, channel: socket.socket, wakeup: int, private: list[str], network: bool) -> None:
        super().__init__(channel, wakeup)
        self.private = private
        self.network = network
        # Above 3: a call's fds are put at 0 to 3 before the helper is run by its /proc/self/fd path.
        self.helper_fds = [fcntl.fcntl(int(path.rsplit("/", 1)[1]), fcntl.F_DUPFD_CLOEXEC, 10) for path in self.helpers or ()]
        self.ready: tuple[int, socket.socket] | None = None
        self.outgoing: list[int] = []  # fds to send with the next answer

    def answer_one(self, request: tuple[object, ...], fds: list[int]) -> object:
        if request[0] == "busy":  # whether a call still runs (a runner with none may be ended)
            return ("ok", bool(self.running or self.ended))
        return super().answer_one(request, fds)

    def prepare(self) -> None:
        if self.ready is None and self.helpers is not None:
            self.ready = make_cell(self.private, self.network, self.helper_fds)
            self.spared.add(self.ready[0])

    def send(self, answer: object) -> None:
        body = spawner_main.marshal.dumps(answer)
        packet = spawner_main.HEADER.pack(len(body)) + body
        if self.outgoing:
            rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", self.outgoing))]
            try:
                sent = self.channel.sendmsg([packet], rights)
                self.channel.sendall(packet[sent:])
            finally:
                for fd in self.outgoing:
                    os.close(fd)
                self.outgoing = []
        else:
            self.channel.sendall(packet)
        self.prepare()  # the next call's cell, made while this one runs

    def spawn(self, request: tuple[object, ...], fds: list[int]) -> object:
        self.prepare()
        if self.ready is None:
            return ("error", 0, "resident: its helper cannot run here")
        keeper, link = self.ready
        self.ready = None
        self.spared.discard(keeper)
        answer: tuple[tuple[object, ...], list[int]] | None = None
        try:
            rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
            link.sendmsg([_packed(("spawn", *request))], rights)
            answer = spawner_main._receive(link)
        except OSError:
            pass
        finally:
            link.close()
        if answer is None or answer[0][0] != "ok":
            _reap(keeper)
            return answer[0] if answer is not None else ("error", 0, "resident: the cell ended before the call")
        self.running.add(keeper)
        self.outgoing = [os.pidfd_open(keeper)]
        return ("ok", keeper)


def _packed(message: object) -> bytes:
    body = spawner_main.marshal.dumps(message)
    return bytes(spawner_main.HEADER.pack(len(body)) + body)


def _reap(pid: int) -> None:
    while True:
        try:
            os.waitpid(pid, 0)
            return
        except InterruptedError:
            continue
        except ChildProcessError:
            return


if __name__ == "__main__":
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        sys.exit("resident: cannot make itself undumpable")
    spawner_main.main(Resident, sys.argv[3:], sys.argv[2] == "1")
