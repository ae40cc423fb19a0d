"""What one turn of the event loop writes to a connection goes out in one `send`.

uvicorn writes a response's head and its body separately (and an SSE event, then the
end of the stream): two syscalls, two TCP segments, and the client woken twice for one
answer, on a machine whose cores the client shares. `BatchedWrites` wraps a connection's
transport: what is written is kept until the end of the loop's turn (`call_soon`), then
written at once; closing writes what is kept first. Nothing waits longer than that turn.
"""

from __future__ import annotations

import asyncio
from typing import Any


class BatchedWrites:
    """A transport whose writes of one loop turn are sent together (module docstring);
    everything else is the wrapped transport's."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._kept: list[bytes] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        if not self._kept:
            self._loop.call_soon(self.flush)
        self._kept.append(bytes(data))

    def writelines(self, lines: Any) -> None:
        for data in lines:
            self.write(data)

    def flush(self) -> None:
        if not self._kept:
            return
        kept, self._kept = self._kept, []
        if not self._transport.is_closing():
            self._transport.write(kept[0] if len(kept) == 1 else b"".join(kept))

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def abort(self) -> None:
        self._kept = []
        self._transport.abort()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + sum(map(len, self._kept))

    def __getattr__(self, name: str) -> Any:  # is_closing, get_extra_info, pause_reading...
        return getattr(self._transport, name)
