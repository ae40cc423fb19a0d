"""`toolkiln doctor`: every check of the tools, their configs and the environment."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

from toolkiln.cli.app import Folders, cli, folder_options
from toolkiln.cli.folder_argument import folder_argument
from toolkiln.cli.hints import in_mode
from toolkiln.cli.rendering import SEVERITY_COLOURS, paint
from toolkiln.cli.terminal import visible

if TYPE_CHECKING:
    from toolkiln.doctor import DoctorReport


@cli.command()
@folder_options
@folder_argument
@click.option(
    "--fix",
    is_flag=True,
    help="Apply the safe fixes: every file mode it reports (run bits, chmod go-w, the token's 600), "
    "discover new or changed scripts, rebuild a stale build.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.option(
    "--server-name",
    default="toolkiln",
    show_default=True,
    help="The server's name in your clients (they prefix it to tool names).",
)
def doctor(folders: Folders, fix: bool, as_json: bool, server_name: str) -> None:
    """Check the tools, their configs and the environment; say what is wrong and how to fix it.

    Each finding has a severity (error, warning, info), a file and line, what is wrong,
    and the fix. Checks: what discovery reports (bad annotations or schemas, unknown
    types, defaults of the wrong type or outside the enum, duplicate names), whether
    each served tool can start as the server starts it (the run bit where it runs by
    itself, the program its #! line or interpreter names), shell and JavaScript syntax
    (bash -n, node --check, which run nothing), invalid or orphaned per-tool configs, a
    build missing or older than its configs, tool names too long for Claude Code or
    Cursor once prefixed with the server's name, more tools than clients take,
    parameters that would set risky environment variables, missing Python packages,
    and files others could change. Exits with status 1 when there are errors.
    """
    from toolkiln.doctor import SEVERITIES, run_doctor

    report = run_doctor(
        folders.tools,
        folders.config,
        prompts_dir=folders.existing(folders.prompts),
        resources_dir=folders.existing(folders.resources),
        server_name=server_name,
        fix=fix,
    )
    if as_json:
        counts = {severity: report.count(severity) for severity in SEVERITIES}
        click.echo(json.dumps({**report.model_dump(mode="json"), "counts": counts}, indent=2))
    else:
        click.echo(_render(report, fix))
    if report.has_errors:
        sys.exit(1)


def _render(report: DoctorReport, fix: bool) -> str:
    from toolkiln.doctor import SEVERITIES

    lines = [f"{paint('fixed', 'green')}: {done}" for done in report.fixed]
    for finding in report.findings:
        colour = SEVERITY_COLOURS[finding.severity]
        label = paint(finding.severity, colour, bold=finding.severity == "error")
        message = visible(in_mode(finding.message))
        lines.append(f"{visible(finding.location)}: {label}: {message} [{finding.check}]")
        if finding.fix:
            lines.append(f"  fix: {visible(in_mode(finding.fix))}")
    summary = ", ".join(_counted(report.count(severity), severity) for severity in SEVERITIES)
    if not fix and any(finding.fixable for finding in report.findings):
        summary += in_mode("; `toolkiln doctor --fix` applies the fixes that say so")
    return "\n".join([*lines, summary])


def _counted(count: int, severity: str) -> str:
    return f"{count} {severity}" + ("s" if count != 1 and severity != "info" else "")
