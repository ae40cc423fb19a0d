"""Make a value safe and small enough to write down: secrets replaced, long values cut.

Every value of a record goes through `Redactor.clean_fields`, whoever made it: the
arguments, the first line of a failed tool's output, the client's name, a denied path.
What is replaced: the server's own token wherever it appears, the values of arguments
whose name is a secret's (at any depth), and anything that looks like a credential
inside any text (patterns.py). What is cut: each string past `MAX_STRING` characters and
each field past `MAX_FIELD` characters of JSON, with a marker saying how much.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from toolkiln.audit.patterns import (
    HARMLESS_WORDS,
    PATTERNS,
    SECRET_ENDINGS,
    SECRET_PAIRS,
    SECRET_WORDS,
)

REDACTED = "[redacted]"
MAX_STRING = 2048  # characters kept of one string
MAX_FIELD = 8192  # characters kept of one field's JSON (all the arguments of a call)
MAX_DEPTH = 32  # levels of nesting kept
# Scanned past a cut, so that a secret the cut goes through is still found whole.
_SCAN_MARGIN = 1024
_SHORTEST_KNOWN = 4
_SHORT_TEXT_CACHED = 64  # texts up to this long are cleaned once and remembered (many repeat)
_SHORT_TEXTS_KEPT = 4096  # a token shorter than this would redact half of every text

# Each pattern with the substrings that let it match (see `Pattern`).
_HINTS = tuple((hint, index) for index, pattern in enumerate(PATTERNS) for hint in pattern.hints)
# A hint found -> the patterns it (or a hint it starts with, found with it) lets run.
_HINT_INDEX = {
    found: frozenset(index for hint, index in _HINTS if found.startswith(hint)) for found, _ in _HINTS
}
_HINT_TEXT = re.compile(
    "(?=(" + "|".join(re.escape(hint) for hint in sorted(_HINT_INDEX, key=len, reverse=True)) + "))"
)
_SHORT_TEXT = 256
_UNHINTED = tuple(index for index, pattern in enumerate(PATTERNS) if not pattern.hints)
_LONGEST_UNHINTED = 40  # a text shorter than this matches none of those (the AWS secret's shape)
_SHORTEST_SECRET = 6  # no pattern matches a shorter text
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def cut_marker(cut: int) -> str:
    return f"…[{cut} more characters cut]"


class Redactor:
    """Cleans the values of records; `known`: secrets replaced wherever they appear (the
    server's own bearer token)."""

    def __init__(self, known: Iterable[str] = ()) -> None:
        self.known: tuple[str, ...] = ()
        self._short: dict[str, str] = {}  # short texts cleaned: names of tools, clients...
        for secret in known:
            self.add_known(secret)

    def add_known(self, secret: str) -> None:
        secret = secret.strip()
        if len(secret) >= _SHORTEST_KNOWN and secret not in self.known:
            self.known = tuple(sorted({*self.known, secret}, key=len, reverse=True))
            self._short.clear()

    def clean_fields(self, fields: Mapping[str, Any], secret_names: Iterable[str] = ()) -> dict[str, Any]:
        """`fields` of a record, each cleaned; `secret_names`: the arguments (in the field
        `arguments`) whose values are redacted whatever their name or value."""
        cleaned: dict[str, Any] = {}
        for name, value in fields.items():
            if value is None or isinstance(value, bool | int | float):
                cleaned[name] = value
            elif type(value) is str and (known := self._short.get(value)) is not None:
                cleaned[name] = known  # a short text cleaned before: a tool's, a client's name
            elif name == "arguments" and isinstance(value, Mapping):
                cleaned[name] = self.redact(value, secret_names)
            else:
                cleaned[name] = self.clean_value(value)
        return cleaned

    def redact(self, arguments: Mapping[str, Any], secret_names: Iterable[str] = ()) -> Any:
        """A copy of `arguments` safe to write down (a string, cut, if its JSON is long)."""
        hidden = {name: REDACTED for name in secret_names if _worth_hiding(arguments.get(name))}
        size = [0]
        cleaned = self._clean({**arguments, **hidden} if hidden else arguments, 0, size)
        return _bounded(cleaned, size[0])

    def clean_value(self, value: Any) -> Any:
        size = [0]
        return _bounded(self._clean(value, 0, size), size[0])

    def clean_text(self, text: str) -> str:
        return self._clean_text(text, [0])

    def _clean_named(self, key: str, value: Any, depth: int, size: list[int]) -> Any:
        if value is not REDACTED and is_secret_name(key) and _worth_hiding(value):
            return REDACTED
        return self._clean(value, depth, size)

    def _clean(self, value: Any, depth: int, size: list[int]) -> Any:
        if isinstance(value, str):
            return self._clean_text(value, size)
        if value is None or isinstance(value, bool | int | float):
            size[0] += 8
            return value
        if isinstance(value, Mapping | list | tuple) and depth >= MAX_DEPTH:
            return f"…[nested deeper than {MAX_DEPTH} levels cut]"
        if isinstance(value, Mapping):
            cleaned: dict[str, Any] = {}
            for key, item in value.items():
                if size[0] > MAX_FIELD:  # cut below anyway: neither read nor scanned
                    cleaned["…"] = f"[{len(value) - len(cleaned)} more keys cut]"
                    break
                cleaned[self._clean_text(str(key), size)] = self._clean_named(str(key), item, depth + 1, size)
            return cleaned
        if isinstance(value, list | tuple):
            items: list[Any] = []
            for item in value:
                if size[0] > MAX_FIELD:
                    items.append(f"…[{len(value) - len(items)} more items cut]")
                    break
                items.append(self._clean(item, depth + 1, size))
            return items
        size[0] += 8
        return value

    def _clean_text(self, text: str, size: list[int]) -> str:
        if size[0] > MAX_FIELD:  # past what is kept of the field: neither scanned nor kept
            return cut_marker(len(text))
        if len(text) <= _SHORT_TEXT_CACHED:
            cleaned = self._short.get(text)
            if cleaned is None:
                if len(self._short) >= _SHORT_TEXTS_KEPT:
                    self._short.clear()
                cleaned = self._short[text] = self._scrub(text)
            size[0] += len(cleaned) + 4
            return cleaned
        cleaned = self._scrub(text)
        size[0] += len(cleaned) + 4
        return cleaned

    def _scrub(self, text: str) -> str:
        cut = len(text) - MAX_STRING
        if cut > 0:
            text = text[: MAX_STRING + _SCAN_MARGIN]
        for secret in self.known:
            if secret in text:
                text = text.replace(secret, REDACTED)
        if len(text) >= _SHORTEST_SECRET:
            text = redact_text(text)
        if cut > 0:
            text = text[:MAX_STRING] + cut_marker(cut)
        return text


def redact_text(text: str) -> str:
    """`text` with whatever looks like a credential in it replaced (patterns.py)."""
    lowered = text.lower()
    if (
        len(text) < _SHORT_TEXT
    ):  # one regex of the hints is quicker on a short text, a search of each on a long one
        hinted = {index for hint in _HINT_TEXT.findall(lowered) for index in _HINT_INDEX[hint]}
    else:
        hinted = {index for hint, index in _HINTS if hint in lowered}
    if len(text) >= _LONGEST_UNHINTED:
        hinted.update(_UNHINTED)
    for index in sorted(hinted):
        text = _compiled(index).sub(_redacted_match, text)
    return text


@functools.cache
def _compiled(index: int) -> re.Pattern[str]:
    """A pattern compiled when a text first needs it: most never run, and compiling all of
    them cost ~2.5 ms of each server start."""
    return re.compile(PATTERNS[index].regex)


def _redacted_match(match: re.Match[str]) -> str:
    """The match with its `secret` group (else all of it) replaced."""
    if "secret" not in match.re.groupindex or match.group("secret") is None:
        return REDACTED
    if match.group("secret").startswith(REDACTED):
        return match.group(0)  # replaced by an earlier pattern
    start, end = match.span("secret")
    whole, offset = match.group(0), match.start()
    return whole[: start - offset] + REDACTED + whole[end - offset :]


def _bounded(value: Any, size: int) -> Any:
    """`value`, or its JSON cut to `MAX_FIELD` characters if it is longer."""
    if size <= MAX_FIELD or not isinstance(value, Mapping | list):
        return value
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= MAX_FIELD:
        return value
    return text[:MAX_FIELD] + cut_marker(len(text) - MAX_FIELD)


def _worth_hiding(value: Any) -> bool:
    """Whether a value under a secret's name may be one: not a flag, not empty."""
    return value is not None and not isinstance(value, bool) and value != ""


@functools.lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """Whether an argument or key named `name` holds a secret (`password`, `apiKey`,
    `aws_secret_access_key`), and not a fact about one (`tokens_used`, `token_type`)."""
    words = [word.lower() for word in _WORDS.findall(name)]
    if any(word in HARMLESS_WORDS for word in words):
        return False
    return (
        any(word in SECRET_WORDS or word.endswith(SECRET_ENDINGS) for word in words)
        or any(pair in SECRET_PAIRS for pair in itertools.pairwise(words))
        or name.lower().replace("-", "").replace("_", "") in SECRET_WORDS
    )


def redact(arguments: Mapping[str, Any], secret_names: Iterable[str] = (), known: Iterable[str] = ()) -> Any:
    """A copy of `arguments` safe to write down: secrets replaced, long values cut."""
    return Redactor(known).redact(arguments, secret_names)
