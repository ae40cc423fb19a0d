"""Who hears a call as it runs: the `CallObserver` protocol (log and progress lines, an
interactive script's questions) and `LoggingObserver`, the one used when nobody listens.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from toolkiln.runner.stderr import LogLine, ProgressLine

logger = logging.getLogger(__name__)

_LOG_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


class CallObserver(Protocol):
    """Receives a call's structured stderr lines as they arrive."""

    def on_log(self, tool: str, line: LogLine) -> None: ...

    def on_progress(self, tool: str, line: ProgressLine) -> None: ...

    async def on_input(self, tool: str, requests: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """An interactive script's questions (runner/interactive.py): a result per key."""
        ...


class LoggingObserver:
    """The default observer: script logs go to the server's own log; nobody answers questions."""

    def on_log(self, tool: str, line: LogLine) -> None:
        logging.getLogger(f"toolkiln.tool.{tool}").log(_LOG_LEVELS[line.level], "%s", line.message)

    def on_progress(self, tool: str, line: ProgressLine) -> None:
        total = f"/{line.total:g}" if line.total is not None else ""
        logger.debug("%s progress %g%s %s", tool, line.progress, total, line.message or "")

    async def on_input(self, tool: str, requests: dict[str, dict[str, Any]]) -> dict[str, Any]:
        refusal = {"error": "there is no MCP client to ask: the tool runs outside a client session"}
        return dict.fromkeys(requests, refusal)
