"""Structured lines in a script's stderr: logs (`INFO ...`) and progress (`PROGRESS 3/10 msg`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Our level names are the MCP logging levels; TRACE has no MCP level and maps to debug.
LOG_LEVELS = {
    "TRACE": "debug",
    "DEBUG": "debug",
    "INFO": "info",
    "WARN": "warning",
    "WARNING": "warning",
    "ERROR": "error",
}

_LOG = re.compile(r"^\[?(TRACE|DEBUG|INFO|WARNING|WARN|ERROR)\]?(?::|\s|$)\s*(.*)$")
_PROGRESS = re.compile(r"^PROGRESS\s+(\d+(?:\.\d+)?)(?:\s*/\s*(\d+(?:\.\d+)?))?(?:\s+(.*))?$")


@dataclass(frozen=True)
class LogLine:
    level: str  # an MCP logging level: debug, info, warning, error
    message: str


@dataclass(frozen=True)
class ProgressLine:
    progress: float
    total: float | None
    message: str | None


def classify_line(line: str) -> LogLine | ProgressLine | None:
    """What a stderr line means; None for plain text."""
    if match := _PROGRESS.match(line):
        total = match.group(2)
        return ProgressLine(float(match.group(1)), float(total) if total else None, match.group(3) or None)
    if match := _LOG.match(line):
        return LogLine(LOG_LEVELS[match.group(1)], match.group(2))
    return None
