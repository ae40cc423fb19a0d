"""Text from untrusted places (a tool's output, a script's description, the audit log)
shown on a terminal without letting it drive the terminal.

An escape sequence can set the window title, write the clipboard (OSC 52), make a link
that shows one address and opens another (OSC 8), or erase what was printed before
it; bidirectional controls can make text read other than it runs, and zero-width or tag
characters hide words. Shown here, each such character becomes its visible escape
(`\\x1b`, `\\u202e`, `\\U000e0041`); newlines and tabs stay.
"""

from __future__ import annotations

import logging
import os
from typing import TextIO

from toolkiln.cli.hints import in_mode
from toolkiln.invisible import escape_invisible


def visible(text: str) -> str:
    """`text` with every control character, and every other character nobody can see
    (`toolkiln.invisible`: zero-width, tag, private-use, unassigned...), shown as its escape."""
    return escape_invisible(text)


class VisibleFormatter(logging.Formatter):
    """Log lines whose message (a script's stderr, a client's words) cannot drive the
    terminal, with their hints in the words of the folder served (`hints.in_mode`)."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return visible(in_mode(super().formatMessage(record)))


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
