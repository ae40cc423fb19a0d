"""A tool call's outcome, independent of MCP."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import Any

# Exit codes of seeds/000.
EXIT_MEANINGS = {1: "internal error", 2: "bad request", 3: "forbidden", 4: "not found"}


def exit_meaning(code: int | None) -> str:
    return EXIT_MEANINGS.get(code or 0, "error")


def signal_name(number: int) -> str:
    """`SIGKILL` for 9; `signal 99` for a number that names no signal."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


@dataclass(frozen=True)
class ToolResult:
    """A call's outcome, independent of MCP: `serve` turns it into a CallToolResult."""

    text: str
    is_error: bool
    structured: dict[str, Any] | None = None
    exit_code: int | None = None
    duration_ms: float | None = None
    truncated: bool = False
    # Extra `_meta` entries of the MCP result (the seeds/004 envelope's `metadata`).
    meta: dict[str, Any] | None = None
    # MCP content items of a rich result (runner/content.py); None: `text` is the content.
    content: list[dict[str, Any]] | None = None
