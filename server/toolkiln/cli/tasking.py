"""`toolkiln tasks`: the tool calls running as MCP tasks, listed, shown and cancelled
from the servers' task store (which one: task_store.py). A cancel is written to the
store: the server running the task, on whichever machine, sees it within about a second
and stops the script's whole process group.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import TYPE_CHECKING, Any

import click

from toolkiln.cli.app import cli
from toolkiln.cli.rendering import paint, render_table
from toolkiln.cli.task_store import Where, opened, store_options
from toolkiln.cli.terminal import terminal_width, visible
from toolkiln.errors import ConfigError

if TYPE_CHECKING:
    from toolkiln.serve.tasks.overview import Running
    from toolkiln.serve.tasks.store import TaskRecord, TaskStore

STATUS_COLOURS = {
    "working": "cyan",
    "input_required": "yellow",
    "completed": "green",
    "failed": "red",
    "cancelled": "magenta",
}
CANCELLED_HERE = "Cancelled from the command line (toolkiln tasks cancel)."


class _ListByDefault(click.Group):
    """`toolkiln tasks [OPTIONS] [DIR]` is `toolkiln tasks list [OPTIONS] [DIR]`: what does
    not name a command (`--config-dir X`, `--json`, a folder) goes to `list`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = ["list", *args]
        return super().parse_args(ctx, args)


@cli.group(cls=_ListByDefault, invoke_without_command=True)
@click.pass_context
def tasks(ctx: click.Context) -> None:
    """List, show and cancel tool calls running as MCP tasks.

    \b
    toolkiln tasks [OPTIONS]    the tasks of every server of yours (as `tasks list [OPTIONS]`)
    toolkiln tasks show ID      one task: its progress, logs and result
    toolkiln tasks cancel ID    stop it: the script's processes are ended

    A task is a call an MCP client started and follows by polling (a tool that runs
    long). An ID may be shortened to any prefix that only one task has.
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_tasks)


@tasks.command("list", short_help="List the tasks: status, progress, age.")
@click.option("--active", is_flag=True, help="Only the tasks still running or waiting for input.")
@click.option("--json", "as_json", is_flag=True, help="Print the tasks as JSON (full ids, no results).")
@store_options
def list_tasks(where: Where, active: bool = False, as_json: bool = False) -> None:
    """List the tasks in the store, oldest first: running ones, and finished ones until
    their time to live is over. Every client's tasks: this is the operator's view."""
    from toolkiln.serve.tasks.overview import age_text, client_of, progress_text, seen_status

    with opened(where) as (store, place, running):
        records = [] if store is None else store.list(active_only=active)
        for record in records:
            seen_status(record, running)  # each server's heartbeat asked while the store is open
    if as_json:
        click.echo(
            json.dumps([_summary(record, running) for record in records], indent=2, ensure_ascii=False)
        )
        return
    if not records:
        click.echo(f"No {'running ' if active else ''}tasks in {place}.")
        return
    rows: list[tuple[str, ...]] = [("ID", "TOOL", "STATUS", "AGE", "CLIENT", "SERVER", "PROGRESS")]
    for record in records:
        status = seen_status(record, running)[0]
        rows.append(
            (
                record.task_id[:8],
                record.tool,
                paint(status, STATUS_COLOURS.get(status, "white")),
                age_text(record),
                client_of(record),
                _server_cell(record),
                progress_text(record, running),
            )
        )
    width = terminal_width(sys.stdout) if sys.stdout.isatty() else None
    click.echo(render_table(rows, width))


@tasks.command("show", short_help="Show a task's progress, logs and result.")
@click.argument("task_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print the whole task as JSON, result included.")
@store_options
def show_task(task_id: str, where: Where, as_json: bool) -> None:
    """Show task ID: status, progress and its latest log lines on stderr, and its result
    (the tool's output, or the error) on stdout. Exits with status 1 when the task
    failed or its tool reported an error."""
    from toolkiln.serve.tasks.overview import age_text, client_of, find_task, result_text, seen_status

    with opened(where) as (store, place, running):
        record = find_task(_all(store, place), task_id)
        status, message = seen_status(record, running)
    if as_json:
        click.echo(json.dumps({**dataclasses.asdict(record), "status": status}, indent=2, ensure_ascii=False))
    else:
        lines = [
            f"task    {record.task_id}",
            f"tool    {record.tool}",
            f"status  {paint(status, STATUS_COLOURS.get(status, 'white'), err=True)}"
            + (f": {message}" if message else ""),
            f"started {age_text(record)} ago by a {client_of(record)} client; {_server(record)}",
        ]
        if record.progress:
            lines.append(f"progress {_progress(record.progress)}")
        lines += [f"  {log['level'].upper()} {log['message']}" for log in record.logs]
        click.echo(visible("\n".join(lines)), err=True)
        text = result_text(record) if record.terminal else ""
        if text:
            click.echo(visible(text) if sys.stdout.isatty() else text)
    failed = status == "failed" or bool((record.result or {}).get("isError"))
    if failed:
        sys.exit(1)


@tasks.command("cancel", short_help="Stop a running task and its processes.")
@click.argument("task_id", metavar="ID")
@store_options
def cancel_task(task_id: str, where: Where) -> None:
    """Cancel task ID: its server (the replica running it, with a Redis store) stops the
    script and everything it started (SIGTERM, then SIGKILL), within about a second, and
    the task ends `cancelled`."""
    from toolkiln.serve.tasks import overview

    with opened(where) as (store, place, _):
        record = overview.find_task(_all(store, place), task_id)
        assert store is not None  # a task was found in it
        overview.cancel_task(store, record, CANCELLED_HERE)
    said = f"Cancelled task {record.task_id[:8]} ({record.tool}); its {_server(record)} stops it."
    click.echo(visible(said))  # the tool's name and host are the store's words


def _server(record: TaskRecord) -> str:
    """`server (instance 3f2a9c01 (pid 812 on host web-2))`: one name across machines."""
    from toolkiln.serve.tasks.store import describe_owner

    return f"server ({describe_owner(record.owner)})"


def _server_cell(record: TaskRecord) -> str:
    """The SERVER column: `web-2 pid 812`, unambiguous across the machines of a shared store."""
    return f"{record.owner.get('host') or '?'} pid {record.owner.get('pid')}"


def _all(store: TaskStore | None, place: str) -> list[TaskRecord]:
    if store is None:
        raise ConfigError(f"{place}: no task store (no server has run a task with this state folder)")
    return store.list()


def _summary(record: TaskRecord, running: Running) -> dict[str, Any]:
    from toolkiln.serve.tasks.overview import client_of, seen_status

    status, message = seen_status(record, running)
    return {
        "taskId": record.task_id,
        "tool": record.tool,
        "status": status,
        "statusMessage": message,
        "createdAt": record.created_at,
        "updatedAt": record.updated_at,
        "progress": record.progress,
        "client": client_of(record)
        if record.principal.startswith("oauth:")
        else record.principal.partition(":")[0],
        "serverPid": record.owner.get("pid"),
        "server": {key: record.owner.get(key) for key in ("instance", "host", "pid")},
    }


def _progress(progress: dict[str, Any]) -> str:
    total = f"/{progress['total']:g}" if progress.get("total") is not None else ""
    return f"{progress.get('progress', 0):g}{total} {progress.get('message') or ''}".rstrip()
