"""What `toolkiln call` shows on stderr while a tool runs: its log lines as they come,
and its progress.

On a terminal, progress is a bar redrawn in place on the last line (carriage return
and erase-line), with the tool's progress message; a log line is written above it.
Elsewhere (stderr piped to a file or a program) both are plain lines without escape
codes, and progress is written only when its whole percent or its message changes,
so a script that reports every item does not flood a log. Colour only on a
terminal, never with NO_COLOR. A script's words go through `visible`: they cannot
drive the terminal.
"""

from __future__ import annotations

import logging
from typing import Any, TextIO

import click

from toolkiln.cli.asking import TerminalObserver
from toolkiln.cli.terminal import terminal_width, visible
from toolkiln.runner import LoggingObserver, LogLine, ProgressLine

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}
_COLOURS = {"debug": "bright_black", "info": "cyan", "warning": "yellow", "error": "red"}
_ERASE_LINE = "\r\x1b[2K"
_BAR_CELLS = 24


class CallDisplay(TerminalObserver):
    """A `CallObserver` for `toolkiln call`: shows the tool's logs and progress on `stream`.

    `terminal`: draw a bar in place (else plain lines); `colour`: colour the levels;
    `threshold`: the least level of a log line shown (a `logging` level); `ask`: ask an
    interactive tool's questions (stdin is a terminal), else refuse them.
    """

    def __init__(self, stream: TextIO, *, terminal: bool, colour: bool, threshold: int, ask: bool) -> None:
        self.stream = stream
        self.ask = ask
        self.terminal = terminal
        self.colour = colour
        self.threshold = threshold
        self._bar: str | None = None  # the bar on screen now, to redraw under a log line
        self._last_plain: tuple[int | float, str | None] | None = None

    def on_log(self, tool: str, line: LogLine) -> None:
        if _LEVELS[line.level] < self.threshold:
            return
        label = click.style(line.level, fg=_COLOURS[line.level], bold=line.level == "error")
        self._write_above_bar(f"{tool}: {label if self.colour else line.level}: {visible(line.message)}")

    def on_progress(self, tool: str, line: ProgressLine) -> None:
        if self.terminal:
            self._bar = _bar_text(tool, line, terminal_width(self.stream))
            self.stream.write(_ERASE_LINE + self._bar)
            self.stream.flush()
            return
        key = (int(100 * line.progress / line.total) if line.total else line.progress, line.message)
        if key != self._last_plain:
            self._last_plain = key
            self._write_line(f"{tool}: progress {_amount(line)}" + _message(line))

    async def on_input(self, tool: str, requests: dict[str, dict[str, Any]]) -> dict[str, Any]:
        if not self.ask:
            return await LoggingObserver.on_input(self, tool, requests)
        self.finish()  # a question is asked on clean lines
        return await super().on_input(tool, requests)

    def finish(self) -> None:
        """Take the bar off the screen (when the call is over, or before a question)."""
        if self._bar is not None:
            self.stream.write(_ERASE_LINE)
            self.stream.flush()
            self._bar = None

    def _write_above_bar(self, text: str) -> None:
        if self._bar is None:
            self._write_line(text)
            return
        self.stream.write(f"{_ERASE_LINE}{text}\n{self._bar}")
        self.stream.flush()

    def _write_line(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()


def _bar_text(tool: str, line: ProgressLine, columns: int) -> str:
    """`tool [#######.........]  42% 3/7 message`, cut to `columns - 1` (so the cursor
    never wraps to a new line)."""
    if line.total:
        fraction = min(max(line.progress / line.total, 0.0), 1.0)
        filled = round(fraction * _BAR_CELLS)
        text = f"{tool} [{'#' * filled}{'.' * (_BAR_CELLS - filled)}] {fraction:4.0%} {_amount(line)}"
    else:
        text = f"{tool} {_amount(line)}"
    text += _message(line)
    width = max(columns - 1, 10)
    return text if len(text) <= width else text[: width - 1] + "…"


def _amount(line: ProgressLine) -> str:
    return f"{line.progress:g}/{line.total:g}" if line.total else f"{line.progress:g}"


def _message(line: ProgressLine) -> str:
    return f" {visible(line.message)}" if line.message else ""
