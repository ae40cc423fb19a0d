"""`serve`'s transport in the spellings users bring from other MCP tools: `--transport
stdio|http|streamable-http` (FastMCP's) and `-p` for `--port`; two that disagree are an
error, not "the last one wins"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.serve.http_server import http_server
from tests.serve.stdio_server import connect, text_of


@pytest.mark.anyio
async def test_transport_stdio_serves_a_client(served: Path) -> None:
    async with connect(served, "auto", "--transport", "stdio") as client:
        result = await client.call_tool("echo", {"word": "-n hi"})
    assert text_of(result) == "-n hi"


@pytest.mark.parametrize("spelling", [("--transport", "http"), ("--transport", "streamable-http")])
def test_transport_http_and_a_short_port_serve_http(
    served: Path, state: Path, spelling: tuple[str, ...]
) -> None:
    with http_server(served, state, transport=(*spelling, "-p", "0")) as running:
        answer = running.rpc("tools/call", {"name": "echo", "arguments": {"word": "hi"}})
    assert answer.status_code == 200
    assert answer.json()["result"]["content"][0]["text"] == "hi"


@pytest.mark.parametrize(
    "flags",
    [("--http", "--stdio"), ("--transport", "http", "--stdio"), ("--transport", "stdio", "--http")],
)
def test_two_transports_that_disagree_are_an_error(
    served: Path, run_cli: Callable[..., Result], flags: tuple[str, ...]
) -> None:
    result = run_cli("serve", *flags)
    assert result.exit_code == 2
    assert "choose one transport: --stdio, --http (or --transport stdio|http)" in result.output
