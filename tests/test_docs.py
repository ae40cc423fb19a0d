"""The docs that are generated from the code are up to date."""

from __future__ import annotations

import runpy
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_cli_reference_matches_the_commands_help() -> None:
    render = runpy.run_path(str(DOCS / "cli_reference.py"))["render"]
    assert (DOCS / "cli.md").read_text() == render(), "docs/cli.md is out of date: run `make docs`"


def test_the_readme_samples_match_what_toolkiln_prints() -> None:
    """Each `<!-- sample: NAME -->` block of README.md, run again (docs/readme_samples.py)."""
    samples = runpy.run_path(str(DOCS / "readme_samples.py"))
    readme = samples["README"].read_text()
    assert readme.count("<!-- sample: ") >= 5
    assert readme == samples["render"](readme), "README.md's samples are out of date: run `make docs`"
