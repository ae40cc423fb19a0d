"""The words of a usage line a by-hand script prints, in order:

    Usage: convert_pdf_to_images.py [input pdf] [output directory]
    usage: %s <input> [output]          (f"Usage: {sys.argv[0]} SRC DST...")

Each is (its text, optional, repeated): `<input>` and `INPUT` are required, `[output]`
optional, `FILE...` repeated. Options (`-v`, `[--force]`) are left out: the script reads
them by hand, and they are not offered. Read with the one usage grammar (conventions/usage).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_USAGE = re.compile(r"usage:?[ \t]+([^\n]{0,300})", re.IGNORECASE)
_NAME = re.compile(r"[^A-Za-z0-9]+")


@dataclass(frozen=True)
class UsageWord:
    text: str
    optional: bool
    repeated: bool

    @property
    def name(self) -> str:
        return _NAME.sub("_", self.text.strip(".")).strip("_").lower()[:64]


def usage_words(strings: list[str]) -> tuple[str, list[UsageWord]] | None:
    """The first usage line among the script's strings and its argument words, read with
    the usage grammar (conventions/usage): `[input pdf]` one word, `<x>`, `FILE...`."""
    from toolkiln.conventions.usage.read import read_usage_text  # only when a script is read

    for text in strings:
        head = text[:2000]
        found = _USAGE.search(head)
        if found is None:
            continue
        read = read_usage_text(head[found.start() :].splitlines()[:1])
        if read is None or not read.patterns:
            continue
        words = [
            UsageWord(positional.text.strip("<>"), optional=positional.optional, repeated=positional.repeated)
            for positional in read.positionals
            if not positional.choices and re.search(r"[A-Za-z]", positional.text)
        ]
        return found.group(0).strip(), words
    return None
