"""The fault suite: `slow` tests run with TOOLKILN_SLOW=1 (`make test-faults`), the
soak only with TOOLKILN_SOAK=1 (`make soak`); the tally is printed at the end."""

from __future__ import annotations

import os

import pytest

from tests.faults.tally import FIGURES, tally


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: a fault test of more than a few seconds (make test-faults)")
    config.addinivalue_line("markers", "soak: minutes of load (make soak)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    slow = pytest.mark.skip(reason="slow: run with `make test-faults` (TOOLKILN_SLOW=1)")
    soak = pytest.mark.skip(reason="soak: run with `make soak` (TOOLKILN_SOAK=1)")
    for item in items:
        if "soak" in item.keywords and not os.environ.get("TOOLKILN_SOAK"):
            item.add_marker(soak)
        elif "slow" in item.keywords and not os.environ.get("TOOLKILN_SLOW"):
            item.add_marker(slow)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    if not any(tally.values()):
        return
    terminalreporter.write_sep("-", "toolkiln under faults, bad input and load")
    terminalreporter.write_line(", ".join(f"{tally[figure]:,} {figure}" for figure in FIGURES))
    if config.cache is not None:
        config.cache.set("toolkiln/faults", {figure: tally[figure] for figure in FIGURES})
