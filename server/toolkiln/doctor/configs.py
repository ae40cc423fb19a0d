"""Checks of the config folder: invalid per-tool configs, configs whose script has gone,
a compiled config missing or older than what it is built from, disabled tools, readings
that are guesses."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.containment import escape_reason
from toolkiln.doctor.findings import Finding, Project, findings_from_config_error
from toolkiln.errors import ConfigError
from toolkiln.files import SERVER_CONFIG_FILE, catalog_path, load_catalog

if TYPE_CHECKING:
    from toolkiln.model import ToolConfig

# Compiled from: the per-item configs (and their folders, whose mtime changes when one
# is deleted) and config/server.json.
BUILD_INPUTS = ("tools", "prompts", "resources")


def check_configs(project: Project) -> list[Finding]:
    findings: list[Finding] = []
    for _, error in project.invalid_configs:
        findings += findings_from_config_error(
            error,
            "invalid-config",
            "correct it, or delete the file and run `toolkiln discover` to start it over",
        )
    for path, config in project.configs:
        script = config.script_config
        outside = _outside_findings(project, path, config)
        findings += outside
        if script.dialect != "command" and not outside and not project.script_of(config).exists():
            findings.append(
                Finding(
                    severity="warning",
                    check="orphan-config",
                    path=str(path),
                    message=f"its script {project.script_of(config)} is gone, so the tool {script.name!r} "
                    "cannot run (the build leaves it out)",
                    fix=f"restore the script, or delete {path}",
                )
            )
        if script.guessed:
            findings.append(
                Finding(
                    severity="info",
                    check="guessed",
                    path=str(path),
                    message=f"the tool {script.name!r} has readings that are guesses: "
                    + ", ".join(script.guessed),
                    fix="check them in this file and correct what is wrong: your corrections are kept on "
                    "rediscovery (docs/dialects.md, Guesses, and your corrections)",
                )
            )
        if not config.enabled:
            findings.append(
                Finding(
                    severity="info",
                    check="disabled",
                    path=str(path),
                    message=f"the tool {script.name!r} is disabled, so it is not served",
                    fix='set "enabled": true to serve it, then toolkiln build',
                )
            )
    return findings + _build_findings(project)


def _outside_findings(project: Project, path: Path, config: ToolConfig) -> list[Finding]:
    """A script or requirements file outside the tools folder, which build refuses."""
    script = config.script_config
    fields = {"script_path": script.script_path, "requirements_file": script.requirements_file}
    return [
        Finding(
            severity="error",
            check="outside-folder",
            path=str(path),
            message=f"script_config.{key}: {reason}, so the build leaves the tool {script.name!r} out",
            fix=f"point it at a file inside {project.tools_dir}, or move the file there",
        )
        for key, relative in fields.items()
        if relative is not None
        and script.dialect != "command"
        and (reason := escape_reason(project.tools_dir, relative)) is not None
    ]


def _build_findings(project: Project) -> list[Finding]:
    catalog = catalog_path(project.config_dir)
    if not project.configs and not project.invalid_configs:
        if catalog.exists():
            return []
        return [
            Finding(
                severity="info",
                check="no-tools",
                path=str(project.config_dir),
                message="no tool has a config yet",
                fix="create one with `toolkiln new NAME`, or run `toolkiln discover`",
            )
        ]
    if not catalog.exists():
        return [
            Finding(
                severity="warning",
                check="not-built",
                path=str(catalog),
                message="the tools have not been built, so there is nothing to serve",
                fix="toolkiln build (doctor --fix does it)",
                fixable=True,
            )
        ]
    try:
        load_catalog(catalog)
    except ConfigError as error:
        return [
            Finding(
                severity="error",
                check="invalid-build",
                path=str(catalog),
                message=f"cannot be read: {error}",
                fix="toolkiln build (doctor --fix does it)",
                fixable=True,
            )
        ]
    newest = _newest_input(project.config_dir)
    if newest is not None and newest.stat().st_mtime_ns > catalog.stat().st_mtime_ns:
        return [
            Finding(
                severity="warning",
                check="stale-build",
                path=str(catalog),
                message=f"is older than {newest}: the server serves the tools as they were before it changed",
                fix="toolkiln build (doctor --fix does it)",
                fixable=True,
            )
        ]
    return []


def _newest_input(config_dir: Path) -> Path | None:
    inputs = [config_dir / SERVER_CONFIG_FILE]
    for kind in BUILD_INPUTS:
        folder = config_dir / kind
        if folder.is_dir():
            inputs += [folder, *folder.glob("*.json")]
    existing = [path for path in inputs if path.exists()]
    return max(existing, key=lambda path: path.stat().st_mtime_ns, default=None)
