"""Running doctor on a real project folder, and picking out its findings."""

from __future__ import annotations

from pathlib import Path

from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.doctor import DoctorReport, Finding, run_doctor

ANNOTATED = """\
#!/bin/bash
# Tool: t
# Description: A tool
# @param word: A word (type: string, default: hi)
echo "$word"
"""

HELP_JSON = """\
#!/bin/bash
if [ "$1" = "--help" ]; then
  echo '{"description": "Says hi"}'
  echo '{}' >&2
  exit 0
fi
echo hi
"""


def doctor(tools_dir: Path, config_dir: Path, **options: object) -> DoctorReport:
    return run_doctor(tools_dir, config_dir, **options)  # type: ignore[arg-type]


def found(report: DoctorReport, check: str) -> list[Finding]:
    return [finding for finding in report.findings if finding.check == check]


def pipeline(tools_dir: Path, config_dir: Path) -> None:
    """Discover and build, as a user would before running doctor."""
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, report.errors
    build_catalog(config_dir, tools_dir)
