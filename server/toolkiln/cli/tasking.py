"""`toolkiln tasks`: the tool calls running as MCP tasks, from the servers' task store.

Every server of one user (each stdio client's, and `serve --http`) keeps its tasks in
one store in the state folder; this reads it, without the mcp SDK. A cancel is written
to the store: the server running the task sees it within about a second and stops the
script's whole process group.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from toolkiln.cli.app import cli, paint, render_table
from toolkiln.cli.terminal import terminal_width, visible
from toolkiln.errors import ConfigError

if TYPE_CHECKING:
    from toolkiln.serve.tasks.store import TaskRecord, TaskStore

STATUS_COLOURS = {
    "working": "cyan",
    "input_required": "yellow",
    "completed": "green",
    "failed": "red",
    "cancelled": "magenta",
}
CANCELLED_HERE = "Cancelled from the command line (toolkiln tasks cancel)."


def state_dir_option(function: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--state-dir",
        type=click.Path(file_okay=False, path_type=Path),
        help="The servers' state folder, where their task store is "
        "[default: $XDG_CONFIG_HOME/toolkiln, or ~/.config/toolkiln; "
        "`serve --http --token-file F` keeps it beside F].",
    )(function)


@cli.group(invoke_without_command=True)
@click.pass_context
def tasks(ctx: click.Context) -> None:
    """List, show and cancel tool calls running as MCP tasks.

    \b
    toolkiln tasks              the tasks of every server of yours (as `tasks list`)
    toolkiln tasks show ID      one task: its progress, logs and result
    toolkiln tasks cancel ID    stop it: the script's processes are ended

    A task is a call an MCP client started and follows by polling (a tool that runs
    long). An ID may be shortened to any prefix that only one task has.
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_tasks)


@tasks.command("list", short_help="List the tasks: status, progress, age.")
@state_dir_option
@click.option("--active", is_flag=True, help="Only the tasks still running or waiting for input.")
@click.option("--json", "as_json", is_flag=True, help="Print the tasks as JSON (full ids, no results).")
def list_tasks(state_dir: Path | None = None, active: bool = False, as_json: bool = False) -> None:
    """List the tasks in the store, oldest first: running ones, and finished ones until
    their time to live is over."""
    from toolkiln.serve.tasks.overview import age_text, client_of, progress_text, seen_status

    with _opened(state_dir) as (store, where):
        records = [] if store is None else store.list(active_only=active)
    if as_json:
        click.echo(json.dumps([_summary(record) for record in records], indent=2, ensure_ascii=False))
        return
    if not records:
        click.echo(f"No {'running ' if active else ''}tasks in {where}.")
        return
    rows: list[tuple[str, ...]] = [("ID", "TOOL", "STATUS", "AGE", "CLIENT", "PROGRESS")]
    for record in records:
        status = seen_status(record)[0]
        rows.append(
            (
                record.task_id[:8],
                record.tool,
                paint(status, STATUS_COLOURS.get(status, "white")),
                age_text(record),
                client_of(record),
                progress_text(record),
            )
        )
    width = terminal_width(sys.stdout) if sys.stdout.isatty() else None
    click.echo(render_table(rows, width))


@tasks.command("show", short_help="Show a task's progress, logs and result.")
@state_dir_option
@click.argument("task_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print the whole task as JSON, result included.")
def show_task(task_id: str, state_dir: Path | None, as_json: bool) -> None:
    """Show task ID: status, progress and its latest log lines on stderr, and its result
    (the tool's output, or the error) on stdout. Exits with status 1 when the task
    failed or its tool reported an error."""
    from toolkiln.serve.tasks.overview import age_text, client_of, find_task, result_text, seen_status

    with _opened(state_dir) as (store, where):
        record = find_task(_all(store, where), task_id)
    status, message = seen_status(record)
    if as_json:
        click.echo(json.dumps({**dataclasses.asdict(record), "status": status}, indent=2, ensure_ascii=False))
    else:
        pid = record.owner.get("pid")
        lines = [
            f"task    {record.task_id}",
            f"tool    {record.tool}",
            f"status  {paint(status, STATUS_COLOURS.get(status, 'white'), err=True)}"
            + (f": {message}" if message else ""),
            f"started {age_text(record)} ago by a {client_of(record)} client; server pid {pid}",
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
@state_dir_option
@click.argument("task_id", metavar="ID")
def cancel_task(task_id: str, state_dir: Path | None) -> None:
    """Cancel task ID: its server stops the script and everything it started (SIGTERM,
    then SIGKILL), within about a second, and the task ends `cancelled`."""
    from toolkiln.serve.tasks import overview

    with _opened(state_dir) as (store, where):
        record = overview.find_task(_all(store, where), task_id)
        assert store is not None  # a task was found in it
        overview.cancel_task(store, record, CANCELLED_HERE)
    pid = record.owner.get("pid")
    click.echo(f"Cancelled task {record.task_id[:8]} ({record.tool}); its server (pid {pid}) stops it.")


@contextlib.contextmanager
def _opened(state_dir: Path | None) -> Iterator[tuple[TaskStore | None, Path]]:
    """The store of `state_dir` (None when there is none yet), and where it is."""
    from toolkiln.serve.tasks.overview import open_task_store
    from toolkiln.serve.tasks.sqlite import STORE_FILE
    from toolkiln.token import default_state_dir

    folder = state_dir or default_state_dir()
    try:
        store = open_task_store(folder)
    except (sqlite3.Error, OSError) as error:  # a file that is not a store, or unreadable
        raise ConfigError(f"{folder / STORE_FILE}: cannot read the task store: {error}") from None
    try:
        yield store, folder / STORE_FILE
    finally:
        if store is not None:
            store.close()


def _all(store: TaskStore | None, where: Path) -> list[TaskRecord]:
    if store is None:
        raise ConfigError(f"{where}: no task store (no server has run a task with this state folder)")
    return store.list()


def _summary(record: TaskRecord) -> dict[str, Any]:
    from toolkiln.serve.tasks.overview import seen_status

    status, message = seen_status(record)
    return {
        "taskId": record.task_id,
        "tool": record.tool,
        "status": status,
        "statusMessage": message,
        "createdAt": record.created_at,
        "updatedAt": record.updated_at,
        "progress": record.progress,
        "client": record.principal.partition(":")[0],
        "serverPid": record.owner.get("pid"),
    }


def _progress(progress: dict[str, Any]) -> str:
    total = f"/{progress['total']:g}" if progress.get("total") is not None else ""
    return f"{progress.get('progress', 0):g}{total} {progress.get('message') or ''}".rstrip()
