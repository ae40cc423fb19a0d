"""A BM25 index of a catalog's tools, with bm25s (an optional extra: `toolkiln[search]`).

bm25s (numpy only, ~100 KB; maintained) was chosen over rank-bm25 (last release 2022,
scores every document in Python per query), tantivy (a 5 MB native wheel, an on-disk
index and a query language to escape) and Whoosh (unmaintained): docs/benchmarks.md
has the figures. It is imported only when a catalog is searched, so a plain install and
a small catalog never load it.
"""

from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from toolkiln.errors import ConfigError
from toolkiln.serve.catalog.search.tokens import query_words, tool_words

logger = logging.getLogger(__name__)

INSTALL_HINT = (
    "search mode needs the optional `bm25s` library: pip install 'toolkiln[search]' "
    "(or uv tool install 'toolkiln[search]'), or set config/server.json `catalog.search` to \"off\""
)


class SearchUnavailable(ConfigError):
    """bm25s is not installed."""


@functools.cache
def bm25_installed() -> bool:
    """Whether bm25s imports (tried once, when a catalog is big enough to need it)."""
    try:
        load_bm25()
    except SearchUnavailable:
        return False
    return True


def load_bm25() -> Any:
    """The bm25s module, or a `SearchUnavailable` that says how to install it."""
    try:
        bm25s = importlib.import_module("bm25s")  # untyped: Any
    except ImportError:
        raise SearchUnavailable(INSTALL_HINT) from None
    # It sets its own logger to DEBUG on import ("Building index from tokens" at every
    # reload): follow the server's level instead.
    logging.getLogger("bm25s").setLevel(logging.NOTSET)
    return bm25s


class ToolIndex:
    """The tools of one catalog (in their `tools/list` wire form), searchable by words."""

    def __init__(self, listed: Sequence[Mapping[str, Any]], synonyms: bool = True) -> None:
        self.synonyms = synonyms
        bm25s = load_bm25()
        self.names = [str(tool["name"]) for tool in listed]
        corpus = [tool_words(tool) or ["\0"] for tool in listed]  # an empty document still counts
        self._bm25 = bm25s.BM25(k1=1.2, b=0.75)
        self._vocabulary = {word for words in corpus for word in words}
        if corpus:
            self._bm25.index(corpus, show_progress=False)

    def search(self, query: str, limit: int) -> list[tuple[str, float]]:
        """The best `limit` tools for `query` with their scores, best first; only tools
        that share a word with it."""
        words = [word for word in query_words(query, self.synonyms) if word in self._vocabulary]
        if not words or not self.names:
            return []
        import numpy  # bm25s's own dependency

        scores = self._bm25.get_scores(words)
        ranked = numpy.argsort(-scores, kind="stable")[:limit]  # ties: in catalog order (by name)
        return [(self.names[i], float(scores[i])) for i in ranked if scores[i] > 0]
