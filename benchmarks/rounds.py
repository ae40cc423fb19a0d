"""How a run is sized (`Preset`), and how rounds become figures: a figure is the median over rounds,
and the variants a ratio compares take turns within each round (`rotated`).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

Figures = dict[str, Any]
T = TypeVar("T")


@dataclass(frozen=True)
class Preset:
    name: str
    make: str  # the make target that runs it
    rounds: int  # rounds of the tools/call figures
    calls: int  # sequential calls per round (and calls per throughput round)
    starts: int  # cold starts per target
    discovery_rounds: int
    flood_rounds: int
    watch_edits: int
    served_tools: int = 1000  # the large compiled config of the cold-start figures


FULL = Preset(
    "full", "make bench", rounds=5, calls=200, starts=10, discovery_rounds=5, flood_rounds=3, watch_edits=9
)
QUICK = Preset(
    "quick",
    "make bench-quick",
    rounds=2,
    calls=100,
    starts=3,
    discovery_rounds=1,
    flood_rounds=1,
    watch_edits=3,
)


def rotated(items: list[T], turn: int) -> list[T]:
    """`items` starting at `turn`: who goes first changes from turn to turn."""
    shift = turn % len(items)
    return items[shift:] + items[:shift]


def median(values: Iterable[float]) -> float:
    return round(statistics.median(values), 3)


def percentiles(seconds: list[float]) -> Figures:
    """p50, p90 and p99 of latencies in seconds, in milliseconds."""
    cuts = statistics.quantiles(seconds, n=100, method="inclusive")
    return {
        name: round(cuts[index] * 1000, 3) for name, index in (("p50_ms", 49), ("p90_ms", 89), ("p99_ms", 98))
    }


def box(seconds: list[float]) -> Figures:
    """The chart's box of all the rounds' latencies, in milliseconds: whiskers at p1 and
    p99, the box from p25 to p75, the line at the median."""
    cuts = statistics.quantiles(seconds, n=100, method="inclusive")
    spots = {"whislo": 0, "q1": 24, "med": 49, "q3": 74, "whishi": 98}
    return {name: round(cuts[index] * 1000, 3) for name, index in spots.items()}
