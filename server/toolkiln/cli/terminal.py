"""Text from untrusted places (a tool's output, a script's description, the audit log)
shown on a terminal without letting it drive the terminal.

An escape sequence can set the window title, write the clipboard (OSC 52), make a link
that shows one address and opens another (OSC 8), or erase what was printed before
it; bidirectional controls can make text read other than it runs. Shown here, each
such character becomes its visible escape (`\\x1b`, `\\u202e`); newlines and tabs stay.
"""

from __future__ import annotations

import logging
import os
import re
from typing import TextIO

# C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides and isolates.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """`text` with every control character shown as its escape."""
    return _CONTROLS.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


class VisibleFormatter(logging.Formatter):
    """Log lines whose message (a script's stderr, a client's words) cannot drive the terminal."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return visible(super().formatMessage(record))


def terminal_width(stream: TextIO, fallback: int = 80) -> int:
    """The columns of the terminal `stream` writes to: `COLUMNS` when set (as
    `shutil.get_terminal_size` reads it), else the terminal's own size."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(stream.fileno()).columns or fallback
    except (OSError, ValueError, AttributeError):
        return fallback
