"""`toolkiln audit`: what the server did, from its audit log."""

from __future__ import annotations

import json
from pathlib import Path

import click

from toolkiln.cli.app import Folders, cli, folder_options
from toolkiln.cli.folder_argument import folder_argument
from toolkiln.cli.rendering import first_line, render_table
from toolkiln.errors import ConfigError

AUDIT_FILE = Path("logs") / "audit.jsonl"


@cli.command()
@folder_options
@folder_argument
@click.option(
    "--audit-log",
    type=click.Path(dir_okay=False, path_type=Path),
    help="[default: CONFIG_DIR/logs/audit.jsonl]",
)
@click.option("--tail", type=click.IntRange(min=1), help="Only the last N records.")
@click.option("--tool", help="Only the calls of this tool.")
@click.option("--json", "as_json", is_flag=True, help="Print the records as JSON lines.")
def audit(
    folders: Folders,
    audit_log: Path | None,
    tail: int | None,
    tool: str | None,
    as_json: bool,
) -> None:
    """Show the audit log: every tool call and every denied request, oldest first."""
    from toolkiln.audit import audit_files, read_audit

    path = audit_log or folders.config / AUDIT_FILE
    if not audit_files(path):
        raise ConfigError(f"{path}: no audit log yet (it is written by `toolkiln serve`)")
    records = read_audit(path, tool=tool, tail=tail)
    if as_json:
        for record in records:
            click.echo(json.dumps(record, ensure_ascii=False))
        return
    rows: list[tuple[str, ...]] = [("TIME", "TRANSPORT", "CLIENT", "TOOL", "MS", "OK", "DETAIL")]
    for record in records:
        detail = record.get("error") or json.dumps(record.get("arguments", {}), ensure_ascii=False)
        rows.append(
            (
                str(record.get("timestamp", "")),
                str(record.get("transport", "")),
                str(record.get("client") or "-"),
                str(record.get("tool") or record.get("path") or "-"),
                str(record.get("duration_ms", "-")),
                "yes" if record.get("success") else "no",
                first_line(str(detail))[:80],
            )
        )
    click.echo(render_table(rows))
