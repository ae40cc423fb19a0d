"""Whether each served tool can start, judged as the runner starts it.

Each enabled tool's command line is built by the runner's own argv builder (with no
arguments), so doctor sees what a call would run: the script itself (it needs the run
bit and a `#!` line naming an installed program, `env -S` and its options understood),
or an interpreter (`bash x.sh`, `node deploy.js`, the Python of a virtual environment),
which must be installed and needs no run bit. A script that cannot start is an error,
and a missing run bit is fixed by `doctor --fix`. A script discovery takes only when it
is executable (annotations, help-json, plain shell scripts) needs the bit all the same:
it runs today, but the next `toolkiln discover` leaves it out.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from toolkiln.build.compile_item import compile_tool
from toolkiln.conventions import launchers
from toolkiln.conventions.naming import ENTRY_POINT
from toolkiln.doctor.findings import Finding, Project
from toolkiln.errors import ProcessStartError, ToolkilnError
from toolkiln.interpreters import shebang_words
from toolkiln.model import CompiledTool, ToolConfig

NOT_EXECUTABLE = "not-executable"
# Dialects whose discovery takes a file only when it is executable (`claims`).
DISCOVERED_WHEN_EXECUTABLE = ("annotations", "help-json", "shell")
DIALECT_WORDS = {
    "annotations": "a script's `# Tool:` header",
    "help-json": "a help-json script",
    "shell": "a plain shell script",
}
# Dialects that choose their program themselves, whatever the `#!` line says.
OWN_PROGRAM = ("python", "argc", "function", "scriptkit")
_ELF = b"\x7fELF"


def check_starting(project: Project) -> list[Finding]:
    """Every enabled tool whose script is there: can it start, as the runner starts it?"""
    findings: list[Finding] = []
    for path, config, script in _served_scripts(project):
        tool = compile_tool(config, str(path))
        try:
            argv = launchers.launch_of(tool).argv(script, tool, {})
        except ProcessStartError as error:
            if not error.about_arguments:
                why, _, remedy = str(error).removeprefix(f"{script.name}: ").partition(": ")
                findings.append(_cannot_start(script, tool.name, why, remedy))
            continue
        except (ToolkilnError, ValueError, KeyError, TypeError):
            continue  # what it needs depends on a call's arguments
        findings += _start_findings(script, tool, argv)
    return findings


def start_program(config: ToolConfig, script: Path) -> list[str]:
    """The words before the script on its command line (empty: it runs by itself), or
    the script's own `#!` words when it does; empty too when it cannot start."""
    tool = compile_tool(config, config.script_config.name)
    try:
        argv = launchers.launch_of(tool).argv(script, tool, {})
    except (ToolkilnError, ValueError, KeyError, TypeError):
        return []
    if argv and argv[0] == str(script):
        return shebang_words(script)
    return argv[: argv.index(str(script))] if str(script) in argv else argv[:1]


def configured_scripts(project: Project) -> set[Path]:
    """The scripts of every configured tool, enabled or not (their checks are here)."""
    return {project.script_of(config) for _, config in project.configs}


def _served_scripts(project: Project) -> Iterator[tuple[Path, ToolConfig, Path]]:
    seen: set[Path] = set()
    for path, config in project.enabled:
        script = project.script_of(config)
        if config.script_config.dialect not in launchers.LAUNCHERS or not script.is_file() or script in seen:
            continue  # a command tool runs no script; a gone one is `orphan-config`
        seen.add(script)  # a file of several tools starts the same way for each
        yield path, config, script


def _start_findings(script: Path, tool: CompiledTool, argv: list[str]) -> list[Finding]:
    executable = os.access(script, os.X_OK)
    if argv and argv[0] == str(script):  # it runs by itself: the kernel reads its #! line
        if not executable:
            why = f"the tool {tool.name!r} runs it by itself, so it cannot start (Permission denied)"
            return [_not_executable(script, why)]
        return _shebang_findings(script, tool.name)
    program = argv[0] if argv else ""
    if program and not _installed(program):
        return [_cannot_start(script, tool.name, f"it runs with {program}, which is not installed")]
    shebang = shebang_words(script)
    if executable or not shebang:
        return []
    if tool.dialect in DISCOVERED_WHEN_EXECUTABLE and not (
        tool.dialect == "annotations" and script.name == ENTRY_POINT
    ):
        return [
            _not_executable(
                script,
                f"`{Path(program).name} {script.name}` runs the tool {tool.name!r} for now, but discovery "
                f"reads {DIALECT_WORDS[tool.dialect]} only when it is executable, so the next "
                "`toolkiln discover` leaves the tool out",
            )
        ]
    if tool.dialect not in OWN_PROGRAM and Path(shebang[0]).name != Path(program).name:
        return [
            _not_executable(
                script,
                f"so the tool {tool.name!r} runs with {Path(program).name}, not with {shebang[0]} as "
                "its #! line says",
                severity="warning",
            )
        ]
    return []  # `node deploy.js` for `#!/usr/bin/env node`: the run bit is not needed


def _shebang_findings(script: Path, name: str) -> list[Finding]:
    words = shebang_words(script)
    if not words:
        if _is_binary(script):
            return []
        return [
            Finding(
                severity="error",
                check="shebang",
                path=str(script),
                line=1,
                message=f"has no #! line, so the system cannot tell what runs it: the tool {name!r} "
                "cannot start (Exec format error)",
                fix="make its first line name its interpreter: #!/bin/bash, #!/usr/bin/env node, ...",
            )
        ]
    if _installed(words[0]):
        return []
    return [
        Finding(
            severity="error",
            check="interpreter",
            path=str(script),
            line=1,
            message=f"its #! line names {words[0]}, which is not installed, so the tool {name!r} "
            "cannot start",
            fix=f"install {words[0]}, or change the #! line to an interpreter that is",
        )
    ]


def _not_executable(script: Path, why: str, *, severity: str = "error") -> Finding:
    return Finding(
        severity="error" if severity == "error" else "warning",
        check=NOT_EXECUTABLE,
        path=str(script),
        message=f"is not executable: {why}",
        fix=f"chmod +x {script} (doctor --fix does it)",
        fixable=True,
    )


def _cannot_start(script: Path, name: str, why: str, remedy: str = "") -> Finding:
    return Finding(
        severity="error",
        check="interpreter",
        path=str(script),
        message=f"the tool {name!r} cannot start: {why}",
        fix=remedy or "install the program it names, or change the #! line to a program that is installed",
    )


def _installed(program: str) -> bool:
    if "/" in program:
        return os.access(program, os.X_OK) and not os.path.isdir(program)
    return shutil.which(program) is not None


def _is_binary(script: Path) -> bool:
    try:
        with script.open("rb") as handle:
            return handle.read(4) == _ELF
    except OSError:
        return False
