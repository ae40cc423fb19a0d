"""Where a call stands in a JavaScript text, read in one pass: comments and strings
blanked (`code_mask`), the brackets that enclose each place and where each one closes
(`Brackets`), so that readers never rescan the text before or after each call.

Every function here does work linear in the text, whatever the text: a script built to
stall a reader (a million `{`, a line of `arg(` calls) costs it one pass.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

# A comment, or a string (its closing quote, when it has one, in `close`).
_MASKED = re.compile(
    r"//[^\n]*|/\*[\s\S]*?(?:\*/|\Z)"
    r"|(?P<quote>['\"])(?:\\[\s\S]?|(?!(?P=quote))[^\\\n])*(?P<close>(?P=quote))?"
    r"|`(?:\\[\s\S]?|[^`\\])*(?P<tick>`)?"
)
_NOT_NEWLINE = re.compile(r"[^\n]")
_BRACKET = re.compile(r"[()\[\]{}]")
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_BOUNDARY = re.compile(r"[\n;{]")
# How far back a block's header or a callback's method is looked for: `.forEach (`,
# `} else {`, `case "some label":`.
_HEADER_WINDOW = 256


def code_mask(text: str) -> str:
    """`text` with the insides of its comments and strings blanked (newlines kept), so
    that calls and braces can be found without being fooled by them."""
    return _MASKED.sub(_blank, text)


def _blank(match: re.Match[str]) -> str:
    found = match.group()
    if found[0] == "/":
        return _NOT_NEWLINE.sub(" ", found)
    closed = match.group("close") or match.group("tick")
    inside = found[1 : len(found) - 1] if closed else found[1:]
    return found[0] + _NOT_NEWLINE.sub(" ", inside) + (closed or "")


@dataclass
class Brackets:
    """The brackets of a masked text: where each opener closes, and the openers that
    enclose each of the places asked for (outermost first)."""

    closing: dict[int, int] = field(default_factory=dict)
    opening: dict[int, int] = field(default_factory=dict)
    enclosing: dict[int, list[int]] = field(default_factory=dict)

    @classmethod
    def read(cls, mask: str, places: list[int], depth_limit: int) -> Brackets:
        """One pass over `mask`; a place enclosed more than `depth_limit` deep gets
        only its outermost `depth_limit` openers (its caller refuses it)."""
        brackets = cls()
        stack: list[int] = []
        wanted = sorted(places)
        next_place = 0
        for match in _BRACKET.finditer(mask):
            at = match.start()
            while next_place < len(wanted) and wanted[next_place] < at:
                brackets.enclosing[wanted[next_place]] = stack[: depth_limit + 1]
                next_place += 1
            char = match.group()
            if char in "([{":
                stack.append(at)
            elif stack and mask[stack[-1]] == _CLOSERS[char]:
                opener = stack.pop()
                brackets.closing[opener], brackets.opening[at] = at, opener
            elif stack:  # a stray closer: it closes what is open, as a reader would
                stack.pop()
        for place in wanted[next_place:]:
            brackets.enclosing[place] = stack[: depth_limit + 1]
        return brackets

    def arguments(self, mask: str, opening: int) -> list[tuple[int, int]]:
        """The spans of a call's top-level arguments (commas at depth one), or [] when
        its `(` never closes."""
        close = self.closing.get(opening)
        if close is None:
            return []
        spans, start, at = [], opening + 1, opening + 1
        separator = re.compile(r"[,(\[{]")
        while (found := separator.search(mask, at, close)) is not None:
            if found.group() == ",":
                spans.append((start, found.start()))
                start = found.end()
                at = found.end()
            else:
                at = self.closing.get(found.start(), close - 1) + 1
        spans.append((start, close))
        return spans


def header_end(mask: str, opener: int) -> int:
    """Where the text before an opener ends, trailing blanks left out."""
    end = opener
    while end > 0 and mask[end - 1].isspace():
        end -= 1
    return end


def header_window(end: int) -> int:
    return max(0, end - _HEADER_WINDOW)


@dataclass
class Statements:
    """Where each statement starts (after a newline, `;` or `{`) and where the marks
    `marks` finds are, for asking whether a statement holds one before a place."""

    boundaries: list[int]
    marks: list[int]

    @classmethod
    def read(cls, mask: str, marks: re.Pattern[str]) -> Statements:
        return cls(
            [match.start() for match in _BOUNDARY.finditer(mask)],
            [match.start() for match in marks.finditer(mask)],
        )

    def marked_before(self, at: int) -> bool:
        """Whether a mark lies between the start of the statement holding `at` and `at`."""
        index = bisect.bisect_left(self.boundaries, at)
        start = self.boundaries[index - 1] + 1 if index else 0
        first = bisect.bisect_left(self.marks, start)
        return first < len(self.marks) and self.marks[first] < at
