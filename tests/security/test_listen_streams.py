"""Issue 30, finding 5: the cap on open `subscriptions/listen` streams is counted per
client address, which a client cannot choose, not per `Mcp-Session-Id`, which nothing
validates; and one client holding streams cannot keep another's out: a new stream closes
the oldest of the busiest address. A real stateless server, raw 2026-07-28 requests."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.conftest import MakeTool
from tests.serve.http_server import RunningServer, http_server
from tests.serve.tasks_wire import VERSION, envelope
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.serve.tasks.stream_slots import PER_CLIENT

ECHO = """\
#!/bin/bash
# Tool: echo
# Description: Print a message back
# @param message: What to print (type: string, required: true)
printf '%s\\n' "$message"
"""
TRIED = 40


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("echo.sh", ECHO)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


class Stream:
    """One listen stream held open: its messages as they come."""

    def __init__(self, stack: ExitStack, http: httpx2.Client, server: RunningServer, headers: dict[str, str]):
        self.message = envelope("subscriptions/listen", {"notifications": {"taskIds": []}}, None)
        sent = {
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": VERSION,
            "Mcp-Method": "subscriptions/listen",
            **server.auth(),
            **headers,
        }
        response = stack.enter_context(http.stream("POST", server.mcp_url, json=self.message, headers=sent))
        self.messages = self._read(response)

    def _read(self, response: httpx2.Response) -> Iterator[dict[str, Any]]:
        if not response.headers.get("content-type", "").startswith("text/event-stream"):
            response.read()
            yield response.json()
            return
        for line in response.iter_lines():
            if line.startswith("data:") and line[5:].strip():
                yield json.loads(line[5:])

    def first(self) -> dict[str, Any]:
        return next(self.messages)

    def acknowledged(self) -> bool:
        return self.first().get("method") == "notifications/subscriptions/acknowledged"

    def ended(self) -> bool:
        """Whether the stream's next message is its final answer (a result, not an error)."""
        final = next(self.messages)
        return final.get("id") == self.message["id"] and "result" in final


def test_a_session_id_per_request_opens_no_more_streams(served: Path, tmp_path: Path) -> None:
    with http_server(served, tmp_path / "state", "--stateless") as server, ExitStack() as stack:
        http = stack.enter_context(httpx2.Client(timeout=30))
        streams = [Stream(stack, http, server, {"Mcp-Session-Id": uuid.uuid4().hex}) for _ in range(TRIED)]
        assert all(stream.acknowledged() for stream in streams)  # each let in, closing an older one
        closed = [stream for stream in streams[:-PER_CLIENT] if stream.ended()]
        assert len(closed) == TRIED - PER_CLIENT  # only PER_CLIENT of the 40 are still open


def test_a_client_holding_streams_cannot_keep_anothers_out(served: Path, tmp_path: Path) -> None:
    proxy = ("--stateless", "--forwarded-allow-ips", "127.0.0.1")  # the test is the proxy: two addresses
    with http_server(served, tmp_path / "state", *proxy) as server, ExitStack() as stack:
        http = stack.enter_context(httpx2.Client(timeout=30))
        hog = [Stream(stack, http, server, {"X-Forwarded-For": "198.51.100.1"}) for _ in range(PER_CLIENT)]
        assert all(stream.acknowledged() for stream in hog)
        other = Stream(stack, http, server, {"X-Forwarded-For": "198.51.100.2"})
        assert other.acknowledged()  # on main: -32600, the hog's 16 held the principal's cap
        more = Stream(stack, http, server, {"X-Forwarded-For": "198.51.100.1"})
        assert more.acknowledged() and hog[0].ended()  # the hog's next closes its own oldest
