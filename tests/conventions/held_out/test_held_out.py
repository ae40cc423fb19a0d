"""The held-out folders (expected.py): per folder, at least the share of the tools a
person expects that toolkiln found with the right parameters when last measured, and no
published tool missing a parameter its script requires."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conventions.held_out.expected import FOLDERS
from tests.conventions.held_out.measure import measure_folder

# Found with the right parameters, when measured (docs/benchmarks.md, "Held-out folders").
FOUND = {
    "mislav_bin": 9,
    "jessfraz_bin": 6,
    "thoughtbot_bin": 6,
    "typer_docs": 19,
    "cpython_scripts": 6,
}


@pytest.mark.parametrize("name", sorted(FOLDERS))
def test_held_out_folder(name: str, tmp_path: Path) -> None:
    figures = measure_folder(name, tmp_path)
    assert figures.correct >= FOUND[name], figures.wrong
    assert figures.missing_required == []
    assert figures.unexpected == []  # every file that is no tool (expected.not_tools) is left out


def test_the_figures_cover_every_folder() -> None:
    assert set(FOUND) == set(FOLDERS)
    assert sum(FOUND.values()) / sum(len(folder.tools) for folder in FOLDERS.values()) >= 0.85
