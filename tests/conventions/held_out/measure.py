"""Discover each held-out folder (a copy, probes confined) and compare what toolkiln
publishes with what a person expects (expected.py): the share of expected tools found
with the right parameters, and the published tools missing a required parameter.

    .venv/bin/python -m tests.conventions.held_out [FOLDERS]

FOLDERS (default: the fixtures) holds one folder per entry of expected.py: the scripts as
published, for the figures in docs/benchmarks.md.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tests.conventions.held_out.expected import FOLDERS, Folder, Params
from toolkiln.discover import discover_tools
from toolkiln.files import load_tool_config, tool_config_path

HERE = Path(__file__).parent / "folders"


@dataclass
class Figures:
    expected: int = 0
    correct: int = 0
    missing_required: list[str] = field(default_factory=list)  # published tools missing one
    unexpected: list[str] = field(default_factory=list)  # published, but no tool a person expects
    wrong: dict[str, str] = field(default_factory=dict)  # expected tool -> what was published

    @property
    def share(self) -> float:
        return self.correct / self.expected if self.expected else 1.0


def measure_folder(name: str, work: Path, base: Path = HERE) -> Figures:
    folder = FOLDERS[name]
    root = work / name
    shutil.copytree(base / name, root / "tools", symlinks=True)
    report = discover_tools(root / "tools", root / "config")
    published = {}
    for tool in report.tools:
        config = load_tool_config(tool_config_path(root / "config", tool.name)).script_config
        published[tool.name] = [(param.name, param.required) for param in config.parameters]
    return compare(folder, published)


def compare(folder: Folder, published: dict[str, Params]) -> Figures:
    figures = Figures(expected=len(folder.tools))
    for tool, expected in folder.tools.items():
        got = published.get(tool)
        if got is None:
            figures.wrong[tool] = "not published"
            continue
        required = {name for name, needed in got if needed}
        if sum(needed for _, needed in got) < sum(needed for _, needed in expected) or any(
            needed and name is not None and name not in {n for n, _ in got} for name, needed in expected
        ):
            figures.missing_required.append(tool)
        if len(got) == len(expected) and all(
            (want is None or want == name) and need == needed
            for (want, need), (name, needed) in zip(expected, got, strict=True)
        ):
            figures.correct += 1
        else:
            figures.wrong[tool] = f"{got} (required: {sorted(required)})"
    figures.unexpected = sorted(set(published) - set(folder.tools))
    return figures


def measure_all(base: Path = HERE) -> dict[str, Figures]:
    with tempfile.TemporaryDirectory(prefix="toolkiln-held-out-") as work:
        return {name: measure_folder(name, Path(work), base) for name in FOLDERS}


def main(argv: list[str]) -> None:
    results = measure_all(Path(argv[0]) if argv else HERE)
    total = sum(f.expected for f in results.values())
    correct = sum(f.correct for f in results.values())
    for name, figures in results.items():
        print(
            f"{name}: {figures.correct}/{figures.expected} ({figures.share:.0%}), missing a required "
            f"parameter: {len(figures.missing_required)}, unexpected: {figures.unexpected}"
        )
        for tool, why in figures.wrong.items():
            print(f"    {tool}: {why}")
    missing = sum(len(f.missing_required) for f in results.values())
    print(
        f"all: {correct}/{total} ({correct / total:.0%}); published tools missing a required parameter: ",
        end="",
    )
    print(missing)
