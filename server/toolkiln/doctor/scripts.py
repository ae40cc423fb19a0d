"""Checks of the scripts: what discovery says of them, the run bit, the `#!` line.

Discovery's own errors are reused as they are (an unknown type, a default of the wrong
type, an enum default not in the enum, a parameter named like PATH, a name two scripts
share...): doctor runs it without writing anything and reports what it found.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

from toolkiln.discover import discover_tools, python_module
from toolkiln.discover import kit as kit_dialect
from toolkiln.discover.annotations import claims as annotations_claims
from toolkiln.discover.base import Candidate
from toolkiln.discover.naming import ENTRY_POINT
from toolkiln.discover.probe import NotProbed
from toolkiln.discover.reasons import QUIET_KINDS, summarise
from toolkiln.discover.scan import MAX_DEPTH, SKIPPED_FOLDERS
from toolkiln.doctor.findings import Finding, Project
from toolkiln.errors import DiscoveryError, ToolkilnError
from toolkiln.interpreters import find_interpreter, interpreter_names

NOT_EXECUTABLE = "is not executable"
DOCTOR_QUIET_KINDS = QUIET_KINDS | {"not-executable"}
# Dialects whose scripts the system runs by their `#!` line.
RUN_BY_SHEBANG = ("annotations", "help-json")
# Run by their `#!` line when they have one, else by the interpreter for their extension.
RUN_BY_SHEBANG_OR_EXTENSION = ("kit", "node-cli", "shell")


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
    return [*_discovery_findings(project), *_run_bit_findings(project), *_interpreter_findings(project)]


def _discovery_findings(project: Project) -> list[Finding]:
    try:
        report = discover_tools(
            project.tools_dir,
            project.config_dir,
            write=False,
            prompts_dir=project.prompts_dir,
            resources_dir=project.resources_dir,
        )
    except ToolkilnError as error:
        return [Finding(severity="error", check="discovery", message=str(error), fix="see the message")]
    findings = []
    for severity, problems in (("error", report.errors), ("warning", report.warnings)):
        for problem in problems:
            if not problem.path or problem.reason.startswith(NOT_EXECUTABLE):
                continue  # an invalid config (check_configs) or the run bit (below)
            if isinstance(problem, NotProbed):  # doctor runs no script: discover reads it, confined
                findings.append(_unprobed(project.tools_dir / problem.path))
                continue
            findings.append(_from_discovery(project, problem, severity))
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


def _from_discovery(project: Project, problem: DiscoveryError, severity: str) -> Finding:
    folders = [project.tools_dir, project.prompts_dir, project.resources_dir]
    shown = next(
        (str(folder / problem.path) for folder in folders if folder and (folder / problem.path).exists()),
        problem.path,
    )
    shadowing = "would overwrite the environment variable" in problem.reason
    return Finding(
        severity="error" if severity == "error" else "warning",
        check="env-shadowing" if shadowing else "declaration",
        path=shown,
        line=problem.line,
        message=problem.reason,
        fix="rename the parameter" if shadowing else "correct the declaration, then run `toolkiln discover`",
    )


def _run_bit_findings(project: Project) -> list[Finding]:
    """Scripts that need the run bit and lack it: a tool's script (fixable), or a file
    with a `#!` line that discovery therefore skips (fixable when it declares a tool)."""
    findings: dict[Path, Finding] = {}
    for _, config in project.configs:
        script = project.script_of(config)
        dialect = config.script_config.dialect
        needs_bit = dialect in RUN_BY_SHEBANG or (
            dialect in RUN_BY_SHEBANG_OR_EXTENSION and _has_shebang(script)
        )
        if needs_bit and script.is_file() and not _executable(script):
            findings[script] = _not_executable(script, declared=True)
    for candidate in _unclaimed_scripts(project.tools_dir):
        if candidate.path not in findings:
            declared = candidate.path.name == ENTRY_POINT or annotations_claims(_as_executable(candidate))
            findings[candidate.path] = _not_executable(candidate.path, declared=declared)
    return list(findings.values())


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


def _interpreter_findings(project: Project) -> list[Finding]:
    """A script the system runs by itself needs a `#!` line naming an installed program."""
    findings = []
    for _, config in project.configs:
        script = project.script_of(config)
        dialect = config.script_config.dialect
        if not script.is_file() or dialect not in (*RUN_BY_SHEBANG, *RUN_BY_SHEBANG_OR_EXTENSION):
            continue
        shebang = _shebang(script)
        if shebang is None:
            if dialect in RUN_BY_SHEBANG:
                findings.append(
                    Finding(
                        severity="error",
                        check="shebang",
                        path=str(script),
                        line=1,
                        message="has no #! line, so the system cannot tell what runs it",
                        fix="make its first line name its interpreter: #!/bin/bash, #!/usr/bin/env node, ...",
                    )
                )
            elif find_interpreter(script) is None:
                wanted = " or ".join(interpreter_names(script)) or "an interpreter for its extension"
                findings.append(
                    Finding(
                        severity="error",
                        check="interpreter",
                        path=str(script),
                        message=f"has no #! line, and {wanted} is not installed to run it",
                        fix=f"install {wanted}, or add a #! line",
                    )
                )
            continue
        program = _missing_program(shebang)
        if program is not None:
            findings.append(
                Finding(
                    severity="error",
                    check="interpreter",
                    path=str(script),
                    line=1,
                    message=f"its #! line names {program}, which is not installed",
                    fix=f"install {program}, or change the #! line to an interpreter that is",
                )
            )
    return findings


def _shebang(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            first = handle.readline(1024)
    except OSError:
        return None
    return first[2:].decode(errors="replace").strip() if first.startswith(b"#!") else None


def _has_shebang(path: Path) -> bool:
    return _shebang(path) is not None


def _missing_program(shebang: str) -> str | None:
    """The program a `#!` line names, when it cannot be found; None when it is there."""
    words = shebang.split()
    if not words:
        return "nothing"
    program = words[0]
    if Path(program).name == "env":  # #!/usr/bin/env [-S] [NAME=value] program
        rest = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
        if not rest:
            return None
        return None if shutil.which(rest[0]) else rest[0]
    return None if os.access(program, os.X_OK) else program


def _executable(path: Path) -> bool:
    try:
        return bool(path.stat().st_mode & 0o111)
    except OSError:
        return False
