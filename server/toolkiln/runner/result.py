"""A tool call's outcome, independent of MCP."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
