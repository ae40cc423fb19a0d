"""The wire between the server and its spawner (`spawner_main.py`) or a runner's resident
(`runner_main.py`), both ways: length-prefixed `marshal` messages, each saying how many fds
came with it (SCM_RIGHTS, sent with its first byte), so that many can be on the way at once.

Requests carry an id (`(id, kind, ...)`) and the answer the same id; id 0 asks for no
answer. What the spawner says unasked (a main process's exit) comes with id 0. Standard
library only: both sides import it (the spawner by path, from a bare interpreter).

A read of a stream socket returns the fds of at most one `sendmsg` (Linux stops a read
after the part that carried fds), and a message's fds come with its first byte: so the fds
read, queued in order, are handed to the messages in order, each taking as many as it says.
"""

import array
import contextlib
import marshal
import os
import socket
import struct
from typing import Any

HEADER = struct.Struct("!IB")  # the body's size, the fds sent with it
MAX_FDS = 3  # of one message: a process's stdin, stdout and stderr
CHUNK = 16 * 1024
_ANCILLARY = socket.CMSG_SPACE(MAX_FDS * array.array("i").itemsize)
_FLAGS = int(socket.MSG_CMSG_CLOEXEC)  # ints, not flag enums: each | of those makes an enum (~1 us)


def pack(message: Any, fds: int = 0) -> bytes:
    """`message` framed, to be sent with `fds` fds."""
    body = marshal.dumps(message)
    return HEADER.pack(len(body), fds) + body


def send(link: socket.socket, message: Any, fds: "list[int] | tuple[int, ...]" = ()) -> None:
    """Send `message` and `fds` (OSError as the socket raises it)."""
    send_packet(link, pack(message, len(fds)), fds)


def send_packet(link: socket.socket, packet: bytes, fds: "list[int] | tuple[int, ...]" = ()) -> None:
    """Send a packed message, its fds with its first byte."""
    if fds:
        sent = link.sendmsg([packet], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
    else:
        sent = link.send(packet)
    if sent < len(packet):
        link.sendall(packet[sent:])


class Inbox:
    """What has been read of one socket: whole messages, each with the fds that came with it."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.fds: list[int] = []
        self.more = False  # the last read may have left some behind

    def read(self, link: socket.socket, flags: int = 0) -> bool:
        """One read (BlockingIOError when there is nothing, with MSG_DONTWAIT, as an int); False at the
        end of the stream; `more` says whether more may wait."""
        data, ancillary, _, _ = link.recvmsg(CHUNK, _ANCILLARY, _FLAGS | flags)
        self.more = len(data) == CHUNK
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                self.fds += array.array("i", payload[: len(payload) // 4 * 4]).tolist()
                self.more = True  # a read ends where a message's fds came: more may follow
        self.data += data
        return bool(data)

    def messages(self) -> "list[tuple[Any, list[int]]]":
        """The whole messages read so far, taken out, each with its fds."""
        taken = []
        offset = 0
        while len(self.data) - offset >= HEADER.size:
            size, count = HEADER.unpack_from(self.data, offset)
            end = offset + HEADER.size + size
            if len(self.data) < end:
                break
            fds, self.fds = self.fds[:count], self.fds[count:]
            taken.append((marshal.loads(self.data[offset + HEADER.size : end]), fds))
            offset = end
        if offset:
            del self.data[:offset]
        return taken

    def close(self) -> None:
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds = []
