"""Checks of what the tools need from their environment: Python packages, and the
environment variables their parameters become.

Each argument reaches a script as an environment variable named after its parameter.
Names that would replace PATH, HOME, LD_*, PYTHON*, GIT_* and the like are refused by
discovery already (doctor reports those as `env-shadowing` errors); the names below are
allowed, but a caller that sets them changes how common programs in the script behave.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from toolkiln import __version__
from toolkiln.doctor.findings import Finding, Project
from toolkiln.runner.requirements import missing_requirements

# Allowed, but a caller that sets them changes how programs in the script behave. What
# would let a caller run code, load it, or choose whom a program trusts or connects to
# (proxies, certificates, GIT_*, SSH_*, AWS_*, EDITOR, ...) is refused by discovery
# (env_names.py) and reported by `check_scripts` as an error.
RISKY_ENV_NAMES = {"TERM": "it changes how terminal programs write their output"}


def check_environment(project: Project) -> list[Finding]:
    findings = [
        Finding(
            severity="info",
            check="python",
            path=sys.executable,
            message=f"toolkiln {__version__} on Python {sys.version.split()[0]}: python tools run here, "
            "and need their packages installed here",
        ),
        *_confinement_findings(project),
    ]
    for _, config in project.enabled:
        script = project.script_of(config)
        for param in config.script_config.parameters:
            risk = RISKY_ENV_NAMES.get(param.name)
            if risk:
                findings.append(
                    Finding(
                        severity="warning",
                        check="env-shadowing",
                        path=str(script),
                        line=_line_of(script, param.name),
                        message=f"the parameter {param.name!r} of {config.script_config.name!r} becomes "
                        f"the environment variable {param.name} of the script: {risk}",
                        fix=f"rename the parameter (e.g. {param.name.lower().strip('_')}_value)",
                    )
                )
        if config.script_config.requirements_file:
            findings += _requirement_findings(project.tools_dir / config.script_config.requirements_file)
    return findings


def _confinement_findings(project: Project) -> list[Finding]:
    """Whether bubblewrap can confine probes and tools here, and which tools need it."""
    from toolkiln.process import confinement_problem

    problem = confinement_problem()
    if problem is None:
        confined = "bubblewrap confines discovery's probes, and the tools whose confinement is turned on"
        return [Finding(severity="info", check="confinement", message=f"{confined} (docs/security.md)")]
    findings = [
        Finding(
            severity="warning",
            check="confinement",
            message=f"scripts cannot be confined here: {problem}; discovery probes no script unless "
            "`discover --unconfined-probes`, and confined tools run unconfined (mode auto) or refuse "
            "(required)",
            fix="install bubblewrap (apt install bubblewrap)",
        )
    ]
    for _, config in project.enabled:
        if config.script_config.confinement.mode == "required":
            findings.append(
                Finding(
                    severity="error",
                    check="confinement",
                    path=str(project.script_of(config)),
                    message=f"the tool {config.script_config.name!r} must run confined, so every call is "
                    "refused",
                    fix="install bubblewrap, or set its confinement.mode to auto",
                )
            )
    return findings


def _requirement_findings(requirements: Path) -> list[Finding]:
    return [
        Finding(
            severity="warning",
            check="missing-requirement",
            path=str(requirements),
            line=_line_of(requirements, package),
            message=f"{package} is not installed for {sys.executable}",
            fix=f"{sys.executable} -m pip install -r {requirements}",
        )
        for package in missing_requirements(requirements)
    ]


def _line_of(path: Path, word: str) -> int | None:
    """The first line of `path` where `word` stands as a word, if any."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])")
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, start=1):
                if pattern.search(line):
                    return number
    except OSError:
        pass
    return None
