"""A usage line's tokens as docopt reads them: words (a `<...>` kept whole, as in
`--file=<a name>`), and `[`, `]`, `(`, `)`, `|`, `...` each a token of its own. Shared
by the usage-text reader and docopt's (conventions/usage/docopt_usage.py)."""

from __future__ import annotations

import re

_WORD = re.compile(r"\S+")
_PATTERN_TOKENS = re.compile(r"([\[\]()|]|\.\.\.)")


def split_pattern(source: str) -> list[str]:
    return pattern_tokens(_PATTERN_TOKENS.sub(r" \1 ", source))


def pattern_tokens(text: str) -> list[str]:
    """The words of a usage line, a `<...>` kept whole: what docopt's split on blanks or
    on `<.*?>` with the word before it gives, in one pass (that pattern, tried at each
    character, was quadratic in a long word or a run of `<`)."""
    tokens: list[str] = []
    last_close = text.rfind(">")
    at = 0
    while (word := _WORD.search(text, at)) is not None:
        opening = text.rfind("<", word.start(), max(word.start(), min(word.end(), last_close)))
        end = word.end() if opening < 0 else text.find(">", opening) + 1
        tokens.append(text[word.start() : end])
        at = end
    return tokens
