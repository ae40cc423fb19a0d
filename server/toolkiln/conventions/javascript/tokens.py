"""JavaScript (and TypeScript) source as tokens, read as text and never run.

Enough of the language to find calls and read their literal arguments: strings in
single, double and back quotes (a template with `${...}` is a token whose value is
None), numbers, names, punctuation, regular expression literals (told from division
by what comes before them), and comments, which are skipped. Lines are counted from 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_NAME = re.compile(r"[A-Za-z_$\u00a0-\uffff][A-Za-z0-9_$\u00a0-\uffff]*")
_NUMBER = re.compile(
    r"0[xX][0-9a-fA-F_]+n?|0[bB][01_]+n?|0[oO][0-7_]+n?"
    r"|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?n?"
)
_MULTI = ("...", "=>", "?.", "??", "&&", "||", "===", "!==", "==", "!=", "<=", ">=")
# After one of these (or at the start), a `/` starts a regular expression, not a division.
_BEFORE_REGEX = set("(,=:[!&|?{};+-*%<>~^") | {"=>", "&&", "||", "??", "==", "===", "!=", "!=="}
_KEYWORDS_BEFORE_REGEX = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void"}
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "0": "\0"}


@dataclass(frozen=True)
class Token:
    kind: str  # "string", "number", "name", "regex", or the punctuation itself
    value: Any
    line: int


def tokenize(text: str) -> list[Token]:
    """Every token of `text`; an unreadable part (an unclosed string) ends the list."""
    tokens: list[Token] = []
    index, line, length = 0, 1, len(text)
    if text.startswith("#!"):
        index = text.find("\n") if "\n" in text else length
    while index < length:
        char = text[index]
        if char in " \t\r\f\v\ufeff\u00a0\u2028\u2029":
            index += 1
        elif char == "\n":
            line += 1
            index += 1
        elif text.startswith("//", index):
            newline = text.find("\n", index)
            index = length if newline < 0 else newline
        elif text.startswith("/*", index):
            close = text.find("*/", index + 2)
            close = length if close < 0 else close
            line += text.count("\n", index, close)
            index = close + 2
        elif char in "'\"`":
            value, end = _string(text, index)
            if end < 0:
                break
            tokens.append(Token("string", value, line))
            line += text.count("\n", index, end)
            index = end
        elif char == "/" and _regex_allowed(tokens):
            end = _regex_end(text, index)
            if end < 0:
                break
            tokens.append(Token("regex", text[index:end], line))
            index = end
        elif (number := _NUMBER.match(text, index)) and not (
            char == "." and tokens and tokens[-1].kind == "?."
        ):
            tokens.append(Token("number", _number(number.group()), line))
            index = number.end()
        elif name := _NAME.match(text, index):
            tokens.append(Token("name", name.group(), line))
            index = name.end()
        else:
            punct = next((multi for multi in _MULTI if text.startswith(multi, index)), char)
            tokens.append(Token(punct, punct, line))
            index += len(punct)
    return tokens


def _regex_allowed(tokens: list[Token]) -> bool:
    if not tokens:
        return True
    last = tokens[-1]
    return last.kind in _BEFORE_REGEX or (last.kind == "name" and last.value in _KEYWORDS_BEFORE_REGEX)


def _regex_end(text: str, start: int) -> int:
    index, in_class = start + 1, False
    while index < len(text):
        char = text[index]
        if char == "\n":
            return -1
        if char == "\\":
            index += 2
            continue
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "/" and not in_class:
            flags = re.compile(r"[a-z]*").match(text, index + 1)
            return flags.end() if flags else index + 1
        index += 1
    return -1


def _number(text: str) -> int | float | None:
    digits = text.replace("_", "").removesuffix("n")
    try:
        if digits[:2].lower() in ("0x", "0b", "0o"):
            return int(digits, 0)
        value = float(digits)
    except ValueError:
        return None
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _string(text: str, start: int) -> tuple[str | None, int]:
    """The string at `start` (None for a template with `${...}`) and the offset after it;
    -1 when it is never closed."""
    quote = text[start]
    parts: list[str] = []
    plain = True
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == quote:
            return ("".join(parts) if plain else None), index + 1
        if char == "\n" and quote != "`":
            return None, -1
        if quote == "`" and text.startswith("${", index):
            plain = False
            index = _substitution_end(text, index + 2)
            if index < 0:
                return None, -1
            continue
        if char == "\\" and index + 1 < len(text):
            escaped = text[index + 1]
            if escaped == "\n":
                index += 2
            elif escaped == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[index + 2 : index + 6]):
                parts.append(chr(int(text[index + 2 : index + 6], 16)))
                index += 6
            else:
                parts.append(_ESCAPES.get(escaped, escaped))
                index += 2
            continue
        parts.append(char)
        index += 1
    return None, -1


def _substitution_end(text: str, index: int) -> int:
    """The offset after the `}` that closes a `${` (nested braces and strings skipped)."""
    depth = 1
    while index < len(text):
        char = text[index]
        if char in "'\"`":
            _, index = _string(text, index)
            if index < 0:
                return -1
            continue
        depth += (char == "{") - (char == "}")
        index += 1
        if depth == 0:
            return index
    return -1
