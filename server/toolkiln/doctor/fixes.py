"""The fixes `doctor --fix` applies: only the safe ones.

Every file mode it reports: the run bit on a tool's script, write access taken from
others where they could change what the server runs, the token made yours alone. Then
discovering what that made a tool and what
changed since the last discovery (as `toolkiln discover` does, its `--help` probes
confined), and rebuilding a compiled config that is missing, unreadable or older than
its per-tool configs: after `--fix`, a new script is served. Everything else is the
user's to decide (a rename, a deletion, a package to install), so doctor only says how.
"""

from __future__ import annotations

import logging
import stat
from dataclasses import dataclass, field
from pathlib import Path

from toolkiln.build.merge import build_catalog
from toolkiln.doctor.findings import Finding, Project
from toolkiln.errors import ToolkilnError
from toolkiln.files import catalog_path, tool_config_path

logger = logging.getLogger(__name__)

BUILD_CHECKS = ("not-built", "invalid-build", "stale-build")
DISCOVER_CHECK = "not-discovered"
# Checks of a file mode, and the bits their fix takes away (as `chmod go-w`, `chmod 600`).
MODE_CHECKS = {"writable-by-others": (stat.S_IWGRP | stat.S_IWOTH, "go-w"), "token-readable": (0o077, "600")}


@dataclass
class FixOutcome:
    fixed: list[str] = field(default_factory=list)
    failed: list[Finding] = field(default_factory=list)


def apply_fixes(project: Project, findings: list[Finding]) -> FixOutcome:
    outcome = FixOutcome()
    run_bits = 0
    for finding in findings:
        if not finding.fixable or not finding.path:
            continue
        if finding.check == "not-executable":
            outcome.fixed.append(_set_run_bit(Path(finding.path)))
            run_bits += 1
        elif finding.check in MODE_CHECKS:
            outcome.fixed.append(_take_away(Path(finding.path), MODE_CHECKS[finding.check]))
    discover = bool(run_bits) or any(f.fixable and f.check == DISCOVER_CHECK for f in findings)
    if discover and not _discover(project, outcome):
        return outcome  # its errors say what to fix; a build now would serve half of it
    if discover or any(finding.fixable and finding.check in BUILD_CHECKS for finding in findings):
        try:
            report = build_catalog(
                project.config_dir, project.tools_dir, project.prompts_dir, project.resources_dir
            )
        except ToolkilnError as error:
            outcome.failed.append(
                Finding(
                    severity="error",
                    check="build-failed",
                    path=str(catalog_path(project.config_dir)),
                    message=f"could not be rebuilt: {error}",
                    fix="fix what the message names, then toolkiln build",
                )
            )
        else:
            count = len(report.tools)
            outcome.fixed.append(f"rebuilt {report.path} with {count} tool{'' if count == 1 else 's'}")
    return outcome


def _discover(project: Project, outcome: FixOutcome) -> bool:
    """`toolkiln discover`; what it wrote goes into `outcome.fixed`. False when it failed."""
    from toolkiln.discover import discover_tools

    try:
        report = discover_tools(
            project.tools_dir,
            project.config_dir,
            prompts_dir=project.prompts_dir,
            resources_dir=project.resources_dir,
        )
    except ToolkilnError as error:
        outcome.failed.append(
            Finding(
                severity="error",
                check="discover-failed",
                path=str(project.tools_dir),
                message=f"could not be discovered: {error}",
                fix="fix what the message names, then toolkiln discover",
            )
        )
        return False
    for status in report.tools:
        if status.change in ("created", "updated"):
            config = tool_config_path(project.config_dir, status.name)
            outcome.fixed.append(f"discovered the tool {status.name!r} ({status.change} {config})")
    return True


def _set_run_bit(path: Path) -> str:
    """chmod +x for whoever may read it (as `chmod +x` does under the usual umask)."""
    mode = stat.S_IMODE(path.stat().st_mode)
    readers = mode & (stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    path.chmod(mode | stat.S_IXUSR | (readers >> 2))
    logger.info("set the run bit of %s", path)
    return f"chmod +x {path}"


def _take_away(path: Path, bits: tuple[int, str]) -> str:
    """chmod go-w (or 600): what the finding says others must not do, taken away."""
    mask, shown = bits
    mode = stat.S_IMODE(path.stat().st_mode)
    path.chmod(mode & ~mask)
    logger.info("chmod %s %s", shown, path)
    return f"chmod {shown} {path}"
