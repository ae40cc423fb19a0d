"""The words of a tool and of a query, as the search index compares them.

A tool's text is its name (split at `_`, `-`, `.`, `/` and camelCase humps, and
counted twice: a name is the most telling words a tool has), its title, its
description and each parameter's name and description. Text is NFKC-folded and
lowercased, words are runs of letters and digits, a few English suffixes are
stripped (`files` -> `file`, `listing` -> `list`) and common words dropped.

Untrusted text is bounded here: a description is read to `MAX_FIELD_CHARS`, a tool to
`MAX_TOOL_WORDS` words, a query to `MAX_QUERY_WORDS`; everything runs in time linear
in its input (one regex without backtracking, no nesting).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any

MAX_FIELD_CHARS = 4000
MAX_TOOL_WORDS = 2000
MAX_QUERY_WORDS = 64
# A word counts once per field (name, title, description, each parameter's name and
# description): a description that repeats a word a thousand times ranks no higher for
# it than one that says it once, and the name, yielded twice, weighs double.

_WORD = re.compile(r"[^\W_]+")  # letters and digits; `_` and every mark or symbol split words
_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_STOPWORDS = frozenset(
    " ".join(
        [
            "a an and are as at be by can do does for from get has have how i if in into is it its",
            "me my of on or so that the their them then there these this to was what when where",
            "which who will with you your want need some any please tool",
        ]
    ).split()
)


@functools.lru_cache(maxsize=65536)  # a catalog's vocabulary is small; its words repeat
def stem_word(word: str) -> str:
    """A light suffix stripper (English plurals, -ing, -ed, a final e), enough to meet
    `files` with `file` and `deleting` with `deletes`; short words stay as they are."""
    if len(word) <= 4 or word.isdigit():
        return word
    if word.endswith("ies"):
        word = word[:-3] + "y"
    elif word.endswith(("sses", "shes", "ches", "xes")):
        word = word[:-2]
    elif word.endswith("ing") and len(word) > 6:
        word = word[:-3]
    elif word.endswith("ed") and len(word) > 5 and not word.endswith("eed"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("e") and len(word) > 5:
        word = word[:-1]
    return word


def text_words(text: str, limit: int) -> list[str]:
    """The search words of `text`, at most `limit` of them."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    words = [stem_word(word) for word in _WORD.findall(text.lower()) if word not in _STOPWORDS]
    return words[:limit]


# Words a user says for what tools' descriptions call otherwise: a query's word also
# searches for these (generic vocabulary of files, code and systems, both ways round).
_SYNONYM_GROUPS = (
    "folder directory dir",
    "delete remove",
    "repo repository",
    "pr pull",
    "bug issue",
    "db database",
    "postgres postgresql",
    "temp temporary",
    "disk filesystem",
    "ci workflow",
    "stop kill terminate",
    "compress archive",
    "rename move",
    "log journal",
)


def _synonyms() -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for group in _SYNONYM_GROUPS:
        words = [stem_word(word) for word in group.split()]
        for word in words:
            table[word] = tuple(other for other in words if other != word)
    return table


SYNONYMS = _synonyms()


def query_words(query: str, synonyms: bool = True) -> list[str]:
    """The words of a query, then (with `synonyms`) what `SYNONYMS` adds for them."""
    words = text_words(query[:MAX_FIELD_CHARS], MAX_QUERY_WORDS)
    if not synonyms:
        return words
    added = [other for word in words for other in SYNONYMS.get(word, ())]
    return words + [word for word in dict.fromkeys(added) if word not in words]


def tool_words(listed: Mapping[str, Any]) -> list[str]:
    """The words of a tool as `tools/list` shows it (its wire form), each once per field."""
    kept: list[str] = []
    for text in _tool_texts(listed):
        kept += dict.fromkeys(text_words(text, MAX_TOOL_WORDS))  # once each, in order
        if len(kept) >= MAX_TOOL_WORDS:
            break
    return kept[:MAX_TOOL_WORDS]


def split_identifier(name: str) -> str:
    """`utils__createPullRequest` -> `utils create Pull Request` (identifiers only: in
    prose, `GitHub` stays one word)."""
    return _HUMP.sub(" ", name[:MAX_FIELD_CHARS]).replace("_", " ").replace("-", " ").replace(".", " ")


def _tool_texts(listed: Mapping[str, Any]) -> Iterator[str]:
    name = str(listed.get("name", ""))
    spaced = split_identifier(name)
    yield spaced
    yield spaced
    for key in ("title", "description"):
        value = listed.get(key)
        if isinstance(value, str):
            yield value[:MAX_FIELD_CHARS]
    schema = listed.get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if isinstance(properties, Mapping):
        for index, (param, spec) in enumerate(properties.items()):
            if index >= 100:
                break
            yield split_identifier(str(param))
            if isinstance(spec, Mapping) and isinstance(spec.get("description"), str):
                yield spec["description"][:MAX_FIELD_CHARS]
