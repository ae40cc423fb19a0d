"""Markdown pieces of docs/benchmarks.md."""

from __future__ import annotations

from collections.abc import Sequence


def table(headers: list[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def join(values: list[float]) -> str:
    return ", ".join(f"{value:g}" for value in values)
