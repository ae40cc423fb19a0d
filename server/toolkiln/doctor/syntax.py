"""Syntax checks of the served shell and JavaScript tools, before a call finds them.

A shell tool is read by `bash -n`, which parses it and runs none of its commands; a
JavaScript tool by `node --check`, which parses it and runs nothing. Each runs with
PATH alone in its environment (`process/parse_check.py`). A script that does not parse
is an error at the file and line the parser names: without this, the first call says
only "exit code 2".
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from toolkiln.doctor.findings import Finding, Project
from toolkiln.doctor.starting import start_program
from toolkiln.process.parse_check import parse_errors

SHELLS = ("bash", "sh")
NODE_SUFFIXES = (".js", ".cjs", ".mjs")
# Dialects toolkiln runs through its own runtime: it is node, whatever the #! line says.
NODE_DIALECTS = ("function", "scriptkit")
PARALLEL = max(2, min(8, os.cpu_count() or 1))
_BASH_LINE = re.compile(r"line (\d+): (.*)")
_NODE_LINE = re.compile(r"^(?P<path>.+):(?P<line>\d+)$")


def check_syntax(project: Project) -> list[Finding]:
    checks: dict[Path, Callable[[Path], list[Finding]]] = {}
    for _, config in project.enabled:
        script = project.script_of(config)
        if script in checks or not script.is_file() or config.script_config.dialect == "command":
            continue
        dialect = config.script_config.dialect
        words = ["node"] if dialect in NODE_DIALECTS else start_program(config, script)
        program = Path(words[0]).name if words else ""
        if program in SHELLS or (program == "" and script.suffix in (".sh", ".bash")):
            checks[script] = _bash_findings
        elif program == "node" and script.suffix.lower() in NODE_SUFFIXES:
            checks[script] = _node_findings
    if not checks:
        return []
    # a few parsers at once: a folder of 200 shell tools is 200 short runs
    with ThreadPoolExecutor(max_workers=min(PARALLEL, len(checks))) as pool:
        results = list(pool.map(lambda item: item[1](item[0]), checks.items()))
    return [finding for findings in results for finding in findings]


def _bash_findings(script: Path) -> list[Finding]:
    bash = shutil.which("bash")
    # extglob on: a script turns it on with `shopt -s extglob`, which `-n` does not run
    # its absolute path: a relative one could start with `-` (`--tools-dir .`, `-x.sh`)
    errors = parse_errors([bash, "-O", "extglob", "-n", os.path.abspath(script)]) if bash else None
    if not errors:
        return []
    line, message = None, errors.strip().splitlines()[0]
    for text in errors.splitlines():
        if match := _BASH_LINE.search(text):
            line, message = int(match[1]), match[2]
            break
    return [_syntax_error(script, line, message, "bash -n")]


def _node_findings(script: Path) -> list[Finding]:
    node = shutil.which("node")
    errors = parse_errors([node, "--check", os.path.abspath(script)]) if node else None
    if not errors:
        return []
    lines = errors.strip().splitlines()
    line = None
    if lines and (match := _NODE_LINE.match(lines[0])):
        line = int(match["line"])
    message = next((text.strip() for text in lines if "Error:" in text), lines[0] if lines else "")
    return [_syntax_error(script, line, message, "node --check")]


def _syntax_error(script: Path, line: int | None, message: str, command: str) -> Finding:
    where = f" at line {line}" if line else ""
    return Finding(
        severity="error",
        check="syntax",
        path=str(script),
        line=line,
        message=f"does not parse ({command}): {message}, so every call fails",
        fix=f"correct the script{where}, then check it with `{command} {script}`",
    )
