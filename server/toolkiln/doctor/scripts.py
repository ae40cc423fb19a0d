"""Checks of the scripts: what discovery says of them, and files with a `#!` line that
discovery skips for want of the run bit (whether each served tool can start is
`starting.py`'s, its syntax `syntax.py`'s).

Discovery's own errors are reused as they are (an unknown type, a default of the wrong
type, an enum default not in the enum, a parameter named like PATH, a name two scripts
share...): doctor runs it without writing anything and reports what it found. A script
that cannot be read keeps its configs, and its tools are served as last read: doctor
says so, and never calls them stale.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from toolkiln.conventions.annotations.read import claims as annotations_claims
from toolkiln.conventions.base import Candidate
from toolkiln.conventions.kit import read as kit_dialect
from toolkiln.conventions.naming import ENTRY_POINT
from toolkiln.conventions.python import execute as python_module
from toolkiln.discover import discover_tools
from toolkiln.discover.probe import NotProbed
from toolkiln.discover.reasons import QUIET_KINDS, summarise
from toolkiln.discover.scan import MAX_DEPTH, SKIPPED_FOLDERS
from toolkiln.doctor.findings import Finding, Project, findings_from_config_error
from toolkiln.doctor.starting import configured_scripts
from toolkiln.errors import ConfigError, DiscoveryError, ToolkilnError
from toolkiln.model import ToolConfig

NOT_EXECUTABLE = "is not executable"
DOCTOR_QUIET_KINDS = QUIET_KINDS | {"not-executable"}


def check_scripts(project: Project) -> list[Finding]:
    if not project.tools_dir.is_dir():
        return [
            Finding(
                severity="error",
                check="tools-folder",
                path=str(project.tools_dir),
                message="there is no tools folder here",
                fix=f"create one with `toolkiln new NAME`, or pass --tools-dir (now {project.tools_dir})",
            )
        ]
    return [*_discovery_findings(project), *_run_bit_findings(project)]


def _discovery_findings(project: Project) -> list[Finding]:
    try:
        report = discover_tools(
            project.tools_dir,
            project.config_dir,
            write=False,
            prompts_dir=project.prompts_dir,
            resources_dir=project.resources_dir,
        )
    except ConfigError as error:  # config/server.json, which discovery reads first
        return findings_from_config_error(
            error,
            "discovery",
            "correct the file as the message says (docs/configuration.md), then run doctor again",
        )
    except ToolkilnError as error:
        return [
            Finding(
                severity="error",
                check="discovery",
                message=str(error),
                fix="correct what the message names, then run `toolkiln discover`",
            )
        ]
    findings = []
    for severity, problems in (("error", report.errors), ("warning", report.warnings)):
        for problem in problems:
            if not problem.path or problem.reason.startswith(NOT_EXECUTABLE):
                continue  # an invalid config (check_configs) or the run bit (below)
            if isinstance(problem, NotProbed):  # doctor runs no script: discover reads it, confined
                findings.append(_unprobed(project.tools_dir / problem.path))
                continue
            findings.append(_from_discovery(project, problem, severity, _tools_of(project, problem.path)))
    for status in report.tools:
        if status.change in ("created", "updated"):
            findings.append(_undiscovered(project.tools_dir / status.script_path, status.name, status.change))
    findings += [
        Finding(
            severity="warning",
            check="not-tools",
            path=str(project.tools_dir),
            message=hint,
            fix="`toolkiln discover --list` says why for each file",
        )
        # (scripts that are not executable have their own finding, with a fix: below)
        for hint in summarise(v for v in report.not_tools if v.kind not in DOCTOR_QUIET_KINDS)
    ]
    return findings


def _undiscovered(script: Path, name: str, change: str) -> Finding:
    """A script that discovery would write a config for, or a new config."""
    if change == "created":
        message = f"declares the tool {name!r}, which has no config yet, so it is not served"
    else:
        message = f"changed since its config was written: the tool {name!r} is served as it was before"
    return Finding(
        severity="warning",
        check="not-discovered",
        path=str(script),
        message=message,
        fix="toolkiln discover && toolkiln build (doctor --fix does it)",
        fixable=True,
    )


def _unprobed(script: Path) -> Finding:
    return Finding(
        severity="warning",
        check="not-discovered",
        path=str(script),
        message="may declare a tool, which only running it can tell (`--help`); doctor runs no script",
        fix="toolkiln discover && toolkiln build (it runs the script confined)",
    )


def _from_discovery(project: Project, problem: DiscoveryError, severity: str, tools: list[str]) -> Finding:
    folders = [project.tools_dir, project.prompts_dir, project.resources_dir]
    shown = next(
        (str(folder / problem.path) for folder in folders if folder and (folder / problem.path).exists()),
        problem.path,
    )
    shadowing = "would overwrite the environment variable" in problem.reason
    where = f" at line {problem.line}" if problem.line else ""
    message, fix = problem.reason, "correct the declaration, then run `toolkiln discover`"
    if shadowing:
        fix = "rename the parameter"
    elif severity == "error" and tools:  # a script that failed to read still declares its tools
        named = ", ".join(repr(name) for name in tools)
        message = (
            f"cannot be read ({problem.reason}); its {'tool' if len(tools) == 1 else 'tools'} {named} "
            "keep their configs and are served as last read"
        )
        fix = f"correct the script{where}, then run `toolkiln discover` (its configs are kept)"
    return Finding(
        severity="error" if severity == "error" else "warning",
        check="env-shadowing" if shadowing else "declaration",
        path=shown,
        line=problem.line,
        message=message,
        fix=fix,
    )


def _tools_of(project: Project, script_path: str) -> list[str]:
    """The tools whose configs name `script_path` (relative to the tools folder)."""
    return sorted(
        config.script_config.name for _, config in project.configs if _script_path(config) == script_path
    )


def _script_path(config: ToolConfig) -> str:
    return config.script_config.script_path


def _run_bit_findings(project: Project) -> list[Finding]:
    """Files with a `#!` line and no run bit that discovery therefore skips: an error
    (fixable) when it declares a tool, else a warning. The configured tools' scripts are
    `starting.py`'s: whether they need the bit depends on how they start."""
    configured = configured_scripts(project)
    findings = []
    for candidate in _unclaimed_scripts(project.tools_dir):
        if candidate.path not in configured:
            declared = candidate.path.name == ENTRY_POINT or annotations_claims(_as_executable(candidate))
            findings.append(_not_executable(candidate.path, declared=declared))
    return findings


def _not_executable(script: Path, *, declared: bool) -> Finding:
    if declared:
        return Finding(
            severity="error",
            check="not-executable",
            path=str(script),
            message="is not executable, so it cannot run as a tool",
            fix=f"chmod +x {script} (doctor --fix does it)",
            fixable=True,
        )
    return Finding(
        severity="warning",
        check="not-executable",
        path=str(script),
        line=1,
        message="has a #! line but is not executable, so discovery skips it",
        fix=f"if it is a tool: chmod +x {script}, then toolkiln discover",
    )


def _is_project(folder: Path, names: list[str]) -> bool:
    """A folder whose pyproject.toml or package.json names commands."""
    from toolkiln.conventions.entry_points import reader

    for name in reader.PROJECT_FILES:
        path = folder / name
        try:
            if name in names and reader.claims(Candidate(path=path, relative_path=name, stat=path.stat())):
                return True
        except OSError:
            continue
    return False


def _unclaimed_scripts(tools_dir: Path) -> Iterator[Candidate]:
    """Files with a `#!` line and no run bit that no dialect runs without one."""
    for folder, subfolders, files in os.walk(tools_dir):
        here = Path(folder)
        depth = len(here.relative_to(tools_dir).parts)
        subfolders[:] = [
            name
            for name in sorted(subfolders)
            if not name.startswith(".")
            and name not in SKIPPED_FOLDERS
            and not (here / name / "pyvenv.cfg").exists()
            and depth < MAX_DEPTH
        ]
        names = sorted(name for name in files if not name.startswith("."))
        if ENTRY_POINT in names:  # a tool folder: its other files are its implementation
            subfolders.clear()
            names = [ENTRY_POINT]
        if _is_project(here, names):  # a project's commands are its tools (conventions/entry_points)
            subfolders.clear()
            continue
        for name in names:
            path = here / name
            try:
                info = path.stat()
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o111 or not _has_shebang(path):
                continue
            candidate = Candidate(path=path, relative_path=path.relative_to(tools_dir).as_posix(), stat=info)
            if python_module.claims(candidate) or kit_dialect.claims(candidate):
                continue  # run by an interpreter: no run bit needed
            yield candidate


def _as_executable(candidate: Candidate) -> Candidate:
    mode = candidate.stat.st_mode | stat.S_IXUSR
    fake = os.stat_result((mode, *tuple(candidate.stat)[1:]))
    return Candidate(path=candidate.path, relative_path=candidate.relative_path, stat=fake)


def _has_shebang(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return False
