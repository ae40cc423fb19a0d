"""bm25s against rank-bm25 and tantivy on the benchmark's catalog, each given the same
words (toolkiln's tokens): top-1/top-5 at 500 tools, index build and search p50 at 500
and 5,000. Run by hand where the other two are importable (not toolkiln dependencies):

    pip install --target /tmp/libs rank-bm25 tantivy
    PYTHONPATH=.:/tmp/libs .venv/bin/python benchmarks/catalog_search/compare_libraries.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import bm25s
import numpy

from benchmarks.catalog_search import _copies, load_catalog, load_queries
from toolkiln.serve.catalog.search.tokens import query_words, tool_words

Search = Callable[[str], list[str]]


def with_bm25s(names: list[str], corpus: list[list[str]]) -> Search:
    index = bm25s.BM25(k1=1.2, b=0.75)
    index.index(corpus, show_progress=False)
    vocabulary = {word for words in corpus for word in words}

    def search(query: str) -> list[str]:
        words = [word for word in query_words(query) if word in vocabulary]
        if not words:
            return []
        scores = index.get_scores(words)
        return [names[i] for i in numpy.argsort(-scores, kind="stable")[:5] if scores[i] > 0]

    return search


def with_rank_bm25(names: list[str], corpus: list[list[str]]) -> Search:
    from rank_bm25 import BM25Okapi

    index = BM25Okapi(corpus)

    def search(query: str) -> list[str]:
        scores = index.get_scores(query_words(query))
        return [names[i] for i in numpy.argsort(-scores, kind="stable")[:5] if scores[i] > 0]

    return search


def with_tantivy(names: list[str], corpus: list[list[str]]) -> Search:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("name", stored=True)
    builder.add_text_field("body", stored=False)
    index = tantivy.Index(builder.build())
    writer = index.writer(50_000_000, 1)
    for name, words in zip(names, corpus, strict=True):
        writer.add_document(tantivy.Document(name=name, body=" ".join(words)))
    writer.commit()
    index.reload()
    searcher = index.searcher()

    def search(query: str) -> list[str]:
        words = query_words(query)
        if not words:
            return []
        parsed = index.parse_query(" ".join(words), ["body"])
        return [searcher.doc(address)["name"][0] for _score, address in searcher.search(parsed, 5).hits]

    return search


def main() -> None:
    queries = load_queries()
    for size in (500, 5000):
        tools: list[dict[str, Any]] = load_catalog()
        tools = _copies(tools, 10) if size == 5000 else tools
        names = [tool["name"] for tool in tools]
        corpus = [tool_words(tool) or ["\0"] for tool in tools]
        for label, make in (("bm25s", with_bm25s), ("rank-bm25", with_rank_bm25), ("tantivy", with_tantivy)):
            started = time.perf_counter()
            search = make(names, corpus)
            build_ms = (time.perf_counter() - started) * 1000
            samples, top1, top5 = [], 0, 0
            for query, answers in queries * 3:
                started = time.perf_counter()
                found = search(query)
                samples.append(time.perf_counter() - started)
                top1 += bool(found) and found[0] in answers
                top5 += any(name in answers for name in found)
            hits = f"top-1 {top1 / len(samples):.1%} top-5 {top5 / len(samples):.1%}" if size == 500 else ""
            p50 = statistics.median(samples) * 1000
            print(f"{size} {label}: build {build_ms:.0f} ms, search p50 {p50:.3f} ms {hits}")


if __name__ == "__main__":
    main()
