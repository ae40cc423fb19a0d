"""The pipeline's commands: discover, build, list."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click

from toolkiln.cli.app import Folders, cli, folder_options
from toolkiln.cli.fallback_flag import FALLBACK_HELP, opt_in_unread
from toolkiln.cli.folder_argument import folder_argument
from toolkiln.cli.hints import in_mode
from toolkiln.cli.rendering import echo_problem, first_line, render_table
from toolkiln.cli.terminal import terminal_width
from toolkiln.files import catalog_path
from toolkiln.wording import counted

if TYPE_CHECKING:
    from toolkiln.discover import ToolStatus
    from toolkiln.discover.report import NotTool
    from toolkiln.model import Parameter


@cli.command()
@folder_options
@folder_argument
@click.option("--force", is_flag=True, help="Re-read every script, changed or not.")
@click.option(
    "--list",
    "list_only",
    is_flag=True,
    help="Show each tool's status, and why each other file is not a tool; write nothing, run no script.",
)
@click.option("--strict", is_flag=True, help="Exit with status 1 when a script could not be read.")
@click.option(
    "--probe-timeout", type=float, default=5.0, show_default=True, help="Seconds a `--help` probe may take."
)
@click.option(
    "--unconfined-probes",
    is_flag=True,
    help="Where bubblewrap cannot confine them, run `--help` probes as you anyway (trusted folders only).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--fallback", is_flag=True, help=FALLBACK_HELP)
def discover(
    folders: Folders,
    force: bool,
    list_only: bool,
    strict: bool,
    probe_timeout: float,
    unconfined_probes: bool,
    as_json: bool,
    fallback: bool,
) -> None:
    """Read the tools folder (and prompts/, resources/); write a config for each item.

    Incremental: a file that has not changed since its config was written is not read
    again. Settings you edit in a per-tool config (enabled, tags, title, name,
    requires_confirmation, read_only, destructive, timeout_seconds, workspace_config,
    limits, confinement) are kept on every rediscovery, and so are your corrections of what
    discovery read (a description, a parameter's name, type or description).

    A script that must run to say what it declares (`--help`) runs confined: no network,
    nothing writable but a private /tmp, an empty home; docs/security.md says more.
    """
    from toolkiln.discover import discover_tools

    if fallback:
        if list_only:
            raise click.UsageError(
                "--fallback opts files in (config/server.json), and --list writes nothing: use one"
            )
        opt_in_unread(folders)
    with _progress_bar("probing scripts") as on_progress:
        report = discover_tools(
            folders.tools,
            folders.config,
            force=force,
            write=not list_only,
            probe_timeout=probe_timeout,
            probes=None if list_only else ("trusted" if unconfined_probes else "confined"),
            on_progress=on_progress,
            prompts_dir=folders.existing(folders.prompts),
            resources_dir=folders.existing(folders.resources),
        )
    for problem in report.errors:
        echo_problem("error", problem)
    for warning in report.warnings:
        echo_problem("warning", warning)
    if as_json:
        everything = {
            "tools": [dataclasses.asdict(status) for status in report.tools],
            "not_tools": [dataclasses.asdict(verdict) for verdict in report.not_tools],
            "prompts": [dataclasses.asdict(status) for status in report.prompts],
            "resources": [dataclasses.asdict(status) for status in report.resources],
        }
        click.echo(json.dumps(everything, indent=2))
    elif list_only:
        click.echo(_status_table(report.tools))
        if report.not_tools:
            why = [("FILE", "NOT A TOOL BECAUSE"), *((v.path, in_mode(v.reason)) for v in report.not_tools)]
            click.echo("\n" + render_table(why))
        for kind, statuses in (("PROMPT", report.prompts), ("RESOURCE", report.resources)):
            if statuses:
                rows = [(kind, "FILE", "STATUS"), *((s.name, s.path, s.change) for s in statuses)]
                click.echo("\n" + render_table(rows))
    else:
        counts = ", ".join(
            f"{report.count(change)} {change}"
            for change in ("created", "updated", "unchanged", "missing", "failed")
        )
        extras = _also(prompt=len(report.prompts), resource=len(report.resources))
        errors = len(report.errors)
        click.echo(
            f"discovered {counted(len(report.tools), 'tool')} in {folders.tools}: {counts}{extras}; "
            f"{counted(errors, 'error')}"
        )
        _echo_hints(report.not_tools)
    if strict and report.errors:
        sys.exit(1)


def _echo_hints(not_tools: list[NotTool]) -> None:
    """Why files are not tools, one line per shared reason (`--list` says it per file)."""
    from toolkiln.discover.reasons import summarise

    hints = summarise(not_tools)
    if not hints:
        return
    click.echo("1 file is not a tool:" if len(not_tools) == 1 else f"{len(not_tools)} files are not tools:")
    for hint in hints:
        click.echo(f"  {in_mode(hint)}")
    click.echo(in_mode("`toolkiln discover --list` says why for each file."))


def _status_table(tools: list[ToolStatus]) -> str:
    rows: list[tuple[str, ...]] = [("CONFIG", "SCRIPT", "TOOL", "PATH", "DESCRIPTION")]
    for tool in tools:
        rows.append(
            (
                "yes" if tool.has_config else "missing",
                "found" if tool.script_found else "missing",
                tool.name,
                tool.script_path,
                first_line(tool.description)[:60],
            )
        )
    return (
        render_table(rows)
        + "\n\nCONFIG: has a per-tool config file; SCRIPT: its script is in the tools folder."
    )


@contextmanager
def _progress_bar(label: str) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on a terminal; nothing when stderr is a pipe or a file."""
    if not sys.stderr.isatty():
        yield None
        return
    bar: Any = None

    def update(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = click.progressbar(length=total, label=label, file=sys.stderr).__enter__()
        bar.update(done - bar.pos)

    try:
        yield update
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)


@cli.command()
@folder_options
@folder_argument
def build(folders: Folders) -> None:
    """Merge the enabled tools, prompts and resources into config/tools.json.

    A config that is malformed fails the build with its file, line and field, and
    the previous tools.json stays as it was. A config that names a file outside its
    folder (the script outside the tools folder) is left out and reported; the others
    are built, and the command exits with status 1.

    With a state URL (config/server.json `state.url`, or TOOLKILN_STATE_URL), the
    replicas are told through Redis: those that share this config folder serve the new
    tools.json at once, and tell their clients.
    """
    from toolkiln.build.merge import build_catalog
    from toolkiln.cli.announcing import announce_build

    report = build_catalog(
        folders.config,
        folders.tools,
        folders.existing(folders.prompts),
        folders.existing(folders.resources),
    )
    for problem in report.errors:
        echo_problem("error", problem)
    for warning in report.warnings:
        echo_problem("warning", warning)
    disabled = f" ({len(report.disabled)} disabled)" if report.disabled else ""
    extras = _also(prompt=len(report.prompts), resource=len(report.resources))
    refused = f"; {len(report.errors)} refused" if report.errors else ""
    click.echo(f"built {report.path} with {counted(len(report.tools), 'tool')}{extras}{disabled}{refused}")
    announce_build(folders.config, report.path)  # with a state URL: the replicas load it
    if report.errors:
        sys.exit(1)


def _also(**counts: int) -> str:
    """`, 2 prompts, 1 resource` for the kinds there are any of (named in the singular)."""
    return "".join(f", {counted(count, kind)}" for kind, count in counts.items() if count)


@cli.command("list")
@folder_options
@folder_argument
@click.option("--json", "as_json", is_flag=True, help="Print the compiled tools as JSON.")
@click.option("--wide", is_flag=True, help="Whole descriptions, however wide the terminal.")
def list_tools(folders: Folders, as_json: bool, wide: bool) -> None:
    """List what the compiled config/tools.json serves: tools, prompts, resources.

    On a terminal each line fits its width (COLUMNS, else the terminal's), cut with an
    ellipsis; piped, or with --wide, descriptions are whole.
    """
    from toolkiln.files import load_catalog
    from toolkiln.runner.requirements import missing_requirements

    catalog_file = catalog_path(folders.config)
    catalog = load_catalog(catalog_file)
    tools_dir = (catalog_file.parent / catalog.tools_dir).resolve()
    missing = {
        tool.name: (tool.requirements_file, missing_requirements(tools_dir / tool.requirements_file))
        for tool in catalog.tools
        if tool.requirements_file
    }
    if as_json:
        listing = [
            {**tool.model_dump(mode="json"), "missing_requirements": missing.get(tool.name, (None, []))[1]}
            for tool in catalog.tools
        ]
        click.echo(json.dumps(listing, indent=2))
        return
    width = None if wide or not sys.stdout.isatty() else terminal_width(sys.stdout)
    rows: list[tuple[str, ...]] = [("TOOL", "ARGUMENTS", "DESCRIPTION")]
    for tool in catalog.tools:
        rows.append((tool.name, _signature(tool.parameters), first_line(tool.description)))
    click.echo(render_table(rows, width))
    if catalog.prompts:
        prompts = [(p.name, _signature(p.arguments), first_line(p.description)) for p in catalog.prompts]
        click.echo("\n" + render_table([("PROMPT", "ARGUMENTS", "DESCRIPTION"), *prompts], width))
    if catalog.resources:
        resources = [(r.name, r.uri, r.mime_type) for r in catalog.resources]
        click.echo("\n" + render_table([("RESOURCE", "URI", "TYPE"), *resources], width))
    counts = ", ".join(
        counted(len(items), kind)
        for kind, items in (
            ("tool", catalog.tools),
            ("prompt", catalog.prompts),
            ("resource", catalog.resources),
        )
    )
    click.echo(f"\n{counts} in {catalog_file}")
    for name, (requirements, packages) in missing.items():
        if packages:
            echo_problem(
                "warning",
                f"{name} needs {', '.join(packages)}, not installed for {sys.executable}; "
                f"install them with: {sys.executable} -m pip install -r {tools_dir / str(requirements)}",
            )


def _signature(parameters: list[Parameter]) -> str:
    return " ".join(f"{p.name}{'' if p.required else '?'}:{p.type}" for p in parameters) or "-"
