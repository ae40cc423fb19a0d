"""Characters a reader cannot see, and how toolkiln shows them.

Text from scripts reaches two readers who trust what they see: the user reviewing a
config or `discover --list`, and the model reading `tools/list`. A character that shows
nothing (or reorders what is shown) lets the two read different texts: Unicode tag
characters (U+E0000 block) spell words only a model reads, zero-width and bidirectional
controls hide or reorder words, a run of variation selectors carries bytes.

The class, by Unicode category: Cc (control characters, but newline and tab), Cf
(format: zero-width characters, LRM/RLM, U+061C, U+FEFF, bidirectional controls, the
tag characters), Co (private use), Cs (surrogates) and Cn (unassigned); the Hangul
fillers, which are letters that show nothing; and a variation selector that does not
follow a visible character (the one after an emoji's base character is that emoji's).
Each is shown as its escape: `\\x1b`, `\\u200b`, `\\U000e0041`.
"""

from __future__ import annotations

import re
import unicodedata

_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn"})
_INVISIBLE_LETTERS = frozenset({0x115F, 0x1160, 0x3164, 0xFFA0})  # Hangul fillers
_ASCII_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def _is_variation_selector(code: int) -> bool:
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF or 0x180B <= code <= 0x180F


def invisible_positions(text: str) -> list[int]:
    """Where the invisible characters of `text` are (indexes, in order)."""
    if text.isascii():
        return [match.start() for match in _ASCII_CONTROLS.finditer(text)]
    found: list[int] = []
    shown = False  # whether the character before is one a variation selector may follow
    for index, char in enumerate(text):
        code = ord(char)
        if code < 0x80:
            hidden = char not in "\n\t" and (code < 0x20 or code == 0x7F)
            shown = not hidden and not char.isspace()
        elif _is_variation_selector(code):
            hidden = not shown
            shown = False  # one selector per character: a second is a hidden byte
        else:
            hidden = code in _INVISIBLE_LETTERS or unicodedata.category(char) in _INVISIBLE_CATEGORIES
            shown = not hidden and not char.isspace()
        if hidden:
            found.append(index)
    return found


def has_invisible(text: str) -> bool:
    return bool(invisible_positions(text))


def escape_char(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def escape_invisible(text: str) -> str:
    """`text` with each invisible character shown as its escape (`\\u200b`)."""
    positions = invisible_positions(text)
    if not positions:
        return text
    pieces, start = [], 0
    for index in positions:
        pieces += [text[start:index], escape_char(text[index])]
        start = index + 1
    pieces.append(text[start:])
    return "".join(pieces)


def describe_invisible(text: str, most: int = 3) -> str:
    """The first few distinct invisible characters of `text`, named: `U+200B ZERO WIDTH SPACE`."""
    codes = list(dict.fromkeys(ord(text[index]) for index in invisible_positions(text)))
    named = [f"U+{code:04X} {unicodedata.name(chr(code), 'unnamed')}" for code in codes[:most]]
    return ", ".join(named) + (f" and {len(codes) - most} more" if len(codes) > most else "")
