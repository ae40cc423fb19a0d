"""serve/http/batched_writes.py: what one turn of the loop writes to a connection goes
out in one write, over a real socket; closing writes what was kept first."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from toolkiln.serve.http.batched_writes import BatchedWrites


class _Counted:
    """A real transport, its writes counted."""

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(data)
        self.transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


def test_one_turns_writes_go_out_together_and_close_sends_what_is_kept() -> None:
    async def main() -> tuple[list[bytes], bytes]:
        loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair()
        transport, _ = await loop.connect_accepted_socket(asyncio.Protocol, ours)
        counted = _Counted(transport)
        batched = BatchedWrites(counted, loop)  # type: ignore[arg-type]
        batched.write(b"HTTP/1.1 200 OK\r\n\r\n")  # a head, then its body, in one turn
        batched.write(b"")
        batched.write(b"body")
        await asyncio.sleep(0)
        batched.write(b"last")  # closed before the turn ends: written first
        batched.close()
        while not transport.is_closing() or transport.get_extra_info("socket").fileno() != -1:
            await asyncio.sleep(0.01)
        theirs.settimeout(5)
        received = b""
        while chunk := theirs.recv(1024):
            received += chunk
        theirs.close()
        return counted.writes, received

    writes, received = asyncio.run(main())
    assert writes == [b"HTTP/1.1 200 OK\r\n\r\nbody", b"last"]
    assert received == b"HTTP/1.1 200 OK\r\n\r\nbodylast"
