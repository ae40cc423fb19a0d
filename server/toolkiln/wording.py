"""How toolkiln words a count in what it prints: `1 tool`, `2 tools`, `0 errors`."""

from __future__ import annotations


def counted(count: int, noun: str) -> str:
    """`count` and `noun`, plural unless the count is one (toolkiln's nouns take an s)."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
