"""The figures of the fault suite, added up as the tests run and printed at the end
(`pytest_terminal_summary` in conftest.py; also kept in pytest's cache under
`toolkiln/faults`)."""

from __future__ import annotations

from collections import Counter

FAULTS = "faults survived"
BAD_INPUTS = "bad inputs tried"
LOAD_CALLS = "calls under load"
LOST_CALLS = "lost calls"
LEAKED = "leaked processes"
FIGURES = (FAULTS, BAD_INPUTS, LOAD_CALLS, LOST_CALLS, LEAKED)

tally: Counter[str] = Counter()


def count(figure: str, n: int = 1) -> None:
    assert figure in FIGURES, figure
    tally[figure] += n
