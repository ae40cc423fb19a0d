"""How the commands print: tables cut to the terminal's width, colour only on a terminal
(never with NO_COLOR), and one line per problem on stderr, each cell and message shown
visibly (terminal.py)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import click

from toolkiln.cli.hints import in_mode
from toolkiln.cli.terminal import visible


def render_table(rows: Sequence[tuple[str, ...]], width: int | None = None) -> str:
    """Columns padded to their widest cell; the last column runs free, or with `width`
    (a terminal's columns) every line is cut to it with an ellipsis, never wrapped: a
    middle column gets at most a third of it, so one long cell cannot push the last
    column off every line. A cell is one line (a newline in a file name would forge a row)."""
    rows = [tuple(_one_line(visible(cell)) for cell in row) for row in rows]
    if width is not None:
        cap = max(width // 3, 12)
        rows = [(row[0], *(cut(cell, cap) for cell in row[1:-1]), row[-1]) for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = (
        "  ".join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)), row[-1]]).rstrip()
        for row in rows
    )
    return "\n".join(lines if width is None else (cut(line, width) for line in lines))


def _one_line(cell: str) -> str:
    """A cell on one line: a newline or tab in it (a file's name may hold them) shown as
    its escape, so that no cell can start a row of its own."""
    return cell.replace("\n", "\\n").replace("\t", "\\t")


def cut(text: str, width: int) -> str:
    """`text`, or its first `width - 1` characters and an ellipsis."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def first_line(text: str) -> str:
    return text.splitlines()[0] if text else ""


SEVERITY_COLOURS = {"error": "red", "warning": "yellow", "info": "cyan"}


def colour_enabled(*, err: bool = False) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    stream = sys.stderr if err else sys.stdout
    return stream.isatty()


def paint(text: str, colour: str, *, err: bool = False, bold: bool = False) -> str:
    """`text` in a colour, when `colour_enabled`; else as it is."""
    return click.style(text, fg=colour, bold=bold) if colour_enabled(err=err) else text


def echo_problem(severity: str, message: object) -> None:
    """`error: message` (or warning, info) on stderr, the severity in colour on a terminal."""
    label = paint(severity, SEVERITY_COLOURS.get(severity, "white"), err=True, bold=severity == "error")
    click.echo(f"{label}: {visible(in_mode(str(message)))}", err=True)
