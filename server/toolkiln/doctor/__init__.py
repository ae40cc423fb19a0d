"""`toolkiln doctor`: what is wrong with the tools, their configs and their environment,
where, and how to fix it. One module per family of checks; each takes the `Project`
and returns `Finding`s. No import of the server (or the mcp SDK).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from toolkiln.doctor.configs import check_configs
from toolkiln.doctor.environment import check_environment
from toolkiln.doctor.findings import SEVERITIES, DoctorReport, Finding, Project, Severity
from toolkiln.doctor.fixes import apply_fixes
from toolkiln.doctor.names import check_names
from toolkiln.doctor.permissions import check_permissions
from toolkiln.doctor.scripts import check_scripts
from toolkiln.doctor.starting import check_starting
from toolkiln.doctor.syntax import check_syntax

__all__ = ["ALL_CHECKS", "SEVERITIES", "DoctorReport", "Finding", "Project", "Severity", "run_doctor"]

ALL_CHECKS: tuple[Callable[[Project], list[Finding]], ...] = (
    check_scripts,
    check_starting,
    check_syntax,
    check_configs,
    check_names,
    check_environment,
    check_permissions,
)


def diagnose(project: Project) -> list[Finding]:
    findings = [finding for check in ALL_CHECKS for finding in check(project)]
    return sorted(findings, key=Finding.sort_key)


def run_doctor(
    tools_dir: Path,
    config_dir: Path,
    *,
    prompts_dir: Path | None = None,
    resources_dir: Path | None = None,
    server_name: str = "toolkiln",
    fix: bool = False,
) -> DoctorReport:
    """Every check; with `fix`, the safe fixes applied and the checks run again."""

    def project() -> Project:
        return Project(tools_dir, config_dir, prompts_dir, resources_dir, server_name)

    findings = diagnose(project())
    if not fix or not any(finding.fixable for finding in findings):
        return DoctorReport(findings=findings, fixed=[])
    outcome = apply_fixes(project(), findings)
    return DoctorReport(
        findings=sorted([*diagnose(project()), *outcome.failed], key=Finding.sort_key), fixed=outcome.fixed
    )
