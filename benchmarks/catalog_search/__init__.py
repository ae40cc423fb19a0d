"""Search mode for big catalogs (serve/catalog/search/): how well its BM25 search finds
the tool a user means, and how long a search takes.

The catalog: 500 real tools (benchmarks/catalog_search/): 104 MCP tools as their
servers describe them (GitHub's MCP server, the reference filesystem server,
Cloudflare Radar: `mcp_tools.txt` names its sources) and 396 command-line programs
described by their manual pages (`cli_tools.json`, made by `gather_cli.py`). The
queries (`queries.json`) are written as a user would ask, each with the tool(s) that
answer it. Hit rate: the share of queries whose answer is the first result (top-1) or
among the first five (top-5). Latency: a search of the index as the server runs it
(words, scores, top five), p50 over every query, at 500 tools and at 5,000 (the 500
ten times, renamed).
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks.rounds import Figures, Preset
from toolkiln.serve.catalog.search.index import ToolIndex

HERE = Path(__file__).parent
_MACROS = {
    "@repo": "owner: Repository owner; repo: Repository name",
    "@page": "page: Page number for pagination (min 1); "
    "perPage: Results per page for pagination (min 1, max 100)",
}


def load_catalog() -> list[dict[str, Any]]:
    """The 500 tools in their `tools/list` wire form."""
    tools = [_tool(name, description, params) for name, description, params in _mcp_tools()]
    for entry in json.loads((HERE / "cli_tools.json").read_text()):
        tools.append(_tool(entry["name"], entry["description"], entry["params"]))
    return tools


def load_queries() -> list[tuple[str, list[str]]]:
    return [(query, answers) for query, answers in json.loads((HERE / "queries.json").read_text())]


def measure_catalog_search(root: Path, preset: Preset) -> Figures:
    tools = load_catalog()
    queries = load_queries()
    figures: Figures = {"tools": len(tools), "queries": len(queries)}
    for label, synonyms in (("", True), ("plain_", False)):  # as served; BM25 alone
        index = ToolIndex(tools, synonyms=synonyms)
        top1 = top5 = 0
        misses = []
        for query, answers in queries:
            found = [name for name, _score in index.search(query, 5)]
            top1 += bool(found) and found[0] in answers
            top5 += any(name in answers for name in found)
            if not any(name in answers for name in found):
                misses.append({"query": query, "expected": answers, "found": found})
        figures[f"{label}top1"] = round(top1 / len(queries), 3)
        figures[f"{label}top5"] = round(top5 / len(queries), 3)
        figures[f"{label}misses"] = misses
    rounds = max(3, preset.rounds)
    for size, catalog in ((500, tools), (5000, _copies(tools, 10))):
        started = time.perf_counter()
        sized = ToolIndex(catalog)
        build_ms = (time.perf_counter() - started) * 1000
        samples = []
        for _ in range(rounds):
            for query, _answers in queries:
                started = time.perf_counter()
                sized.search(query, 5)
                samples.append(time.perf_counter() - started)
        cuts = statistics.quantiles(samples, n=100, method="inclusive")
        figures[f"at_{size}"] = {
            "build_ms": round(build_ms, 1),
            "p50_ms": round(cuts[49] * 1000, 3),
            "p99_ms": round(cuts[98] * 1000, 3),
            "searches": len(samples),
        }
    return figures


def render_catalog_search(figures: Figures) -> str:
    lines = [
        f"{figures['tools']} real tool descriptions, {figures['queries']} queries written as a user "
        "would ask (benchmarks/catalog_search/).\n",
        "| measure | figure |",
        "|---|---|",
        f"| top-1 hit rate | {figures['top1']:.1%} (BM25 alone, without the synonyms: "
        f"{figures['plain_top1']:.1%}) |",
        f"| top-5 hit rate | {figures['top5']:.1%} (without the synonyms: {figures['plain_top5']:.1%}) |",
    ]
    for size in (500, 5000):
        sized = figures[f"at_{size}"]
        lines.append(f"| search p50 / p99 at {size:,} tools | {sized['p50_ms']} ms / {sized['p99_ms']} ms |")
        lines.append(
            f"| index build at {size:,} tools (first search after a reload) | {sized['build_ms']} ms |"
        )
    if figures["misses"]:
        lines += ["", "Queries whose answer was not in the top five:", ""]
        lines += [
            f'- "{miss["query"]}": expected {", ".join(miss["expected"])}; '
            f"got {', '.join(miss['found']) or 'nothing'}"
            for miss in figures["misses"]
        ]
    return "\n".join(lines) + "\n"


def _mcp_tools() -> list[tuple[str, str, dict[str, str]]]:
    tools = []
    for line in (HERE / "mcp_tools.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = [part.strip() for part in line.split("|", 3)]
        _source, name, description, params = parts + [""] * (4 - len(parts))
        for macro, text in _MACROS.items():
            params = params.replace(macro, text)
        parsed: dict[str, str] = {}
        for item in filter(None, (piece.strip() for piece in params.split("; "))):
            param, _, text = item.partition(":")
            parsed[param.strip()] = text.strip()
        tools.append((name, description, parsed))
    return tools


def _tool(name: str, description: str, params: dict[str, str]) -> dict[str, Any]:
    properties = {param: ({"description": text} if text else {}) for param, text in params.items()}
    return {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": properties},
    }


def _copies(tools: list[dict[str, Any]], times: int) -> list[dict[str, Any]]:
    return [{**tool, "name": f"{tool['name']}_{copy}"} for copy in range(times) for tool in tools]
