"""Serving over stdio: what MCP clients spawn. stdout carries the protocol only."""

from __future__ import annotations

import logging
import signal
from typing import Any

import anyio
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

logger = logging.getLogger(__name__)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve until the client closes stdin or a signal asks us to stop.

    A signal cancels the session, and cancelling a call stops its process group,
    so nothing the server started outlives it.
    """
    async with anyio.create_task_group() as group:
        group.start_soon(_stop_on_signal, group.cancel_scope)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        group.cancel_scope.cancel()


async def _stop_on_signal(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP, signal.SIGINT) as signals:
        async for signum in signals:
            logger.info("stopping on %s", signal.Signals(signum).name)
            scope.cancel()
            return
