"""The words of a usage line a by-hand script prints, in order:

    Usage: convert_pdf_to_images.py [input pdf] [output directory]
    usage: %s <input> [output]          (f"Usage: {sys.argv[0]} SRC DST...")

Each is (its text, optional, repeated): `<input>` and `INPUT` are required, `[output]`
optional, `FILE...` repeated. Options (`-v`, `[--force]`) are left out: the script reads
them by hand, and they are not offered. Read with a regular expression bounded per line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_USAGE = re.compile(r"usage:?[ \t]+([^\n]{0,300})", re.IGNORECASE)
_WORD = re.compile(r"\[([^\[\]]{1,60})\]|<([^<>]{1,60})>|(\S{1,60})")
_PROGRAM = re.compile(r"^(python3?|%s|\{\}|\S+\.py|PROG|\$0)$", re.IGNORECASE)
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
    """The first usage line among the script's strings and its argument words."""
    for text in strings:
        found = _USAGE.search(text[:2000])
        if found is None:
            continue
        line = found.group(1).strip()
        words: list[UsageWord] = []
        tokens = list(_WORD.finditer(line))
        while tokens and tokens[0].group(3) and _PROGRAM.match(tokens[0].group(3)):
            tokens.pop(0)
        for token in tokens:
            optional_text, required_text, bare = token.groups()
            text = optional_text or required_text or bare or ""
            if text.startswith("-") or not re.search(r"[A-Za-z]", text):
                continue
            repeated = text.endswith("...") or token.group(0).endswith("...")
            word = text.removesuffix("...").strip("<>[] ")
            if word and (optional_text is not None or required_text is not None or _looks_named(word)):
                words.append(UsageWord(word, optional=optional_text is not None, repeated=repeated))
        return found.group(0).strip(), words
    return None


def _looks_named(word: str) -> bool:
    """A bare word names an argument when written as one (`FILE`, `file_name`), not prose."""
    return word.isupper() or "_" in word
