"""`toolkiln enable NAME [DIR]`, `disable NAME [DIR]`, `fallback on|off [DIR]`: one
command for each setting a user turns, in a project or in the private folder toolkiln
keeps for a folder of scripts, followed by the rebuild that makes it served."""

from __future__ import annotations

import click

from toolkiln.cli.app import Folders, cli, folder_options
from toolkiln.cli.folder_argument import folder_argument
from toolkiln.cli.rebuilding import build_and_tell
from toolkiln.cli.rendering import echo_problem, paint
from toolkiln.wording import counted


@cli.command()
@folder_options
@click.argument("name")
@folder_argument
def enable(folders: Folders, name: str) -> None:
    """Serve tool NAME again: set `enabled` in its per-tool config, and build."""
    _switch(folders, name, enabled=True)


@cli.command()
@folder_options
@click.argument("name")
@folder_argument
def disable(folders: Folders, name: str) -> None:
    """Stop serving tool NAME: clear `enabled` in its per-tool config, and build.
    Discovery keeps it off; `toolkiln enable NAME` serves it again."""
    _switch(folders, name, enabled=False)


@cli.group()
def fallback() -> None:
    """Serve the executables no dialect declares, as tools that take their whole command
    line (`args`), or stop: `discovery.fallback` in server.json (docs/dialects.md).

    \b
    toolkiln fallback on DIR               every undeclared executable of DIR
    toolkiln fallback on DIR --path bin/   only those under bin/ (repeatable; globs)
    toolkiln fallback off DIR              none
    """


_PATH_OPTION = click.option(
    "--path",
    "paths",
    multiple=True,
    metavar="PATTERN",
    help="A path or glob relative to the scripts folder ('bin/', 'tools/*.sh'); repeatable "
    "[default: the whole folder].",
)


@fallback.command("on")
@folder_options
@_PATH_OPTION
@folder_argument
def fallback_on(folders: Folders, paths: tuple[str, ...]) -> None:
    """Serve the undeclared executables (of the whole folder, or --path), then discover and build."""
    _set_fallback(folders, list(paths), on=True)


@fallback.command("off")
@folder_options
@_PATH_OPTION
@folder_argument
def fallback_off(folders: Folders, paths: tuple[str, ...]) -> None:
    """Stop serving them (all, or those --path names), then discover and build."""
    _set_fallback(folders, list(paths), on=False)


def _switch(folders: Folders, name: str, *, enabled: bool) -> None:
    from toolkiln.files import tool_config_path
    from toolkiln.switches import set_tool_enabled

    changed = set_tool_enabled(folders.config, name, enabled)
    word = "enabled" if enabled else "disabled"
    path = tool_config_path(folders.config, name)
    click.echo(f"{paint(word, 'green')} {name} in {path}" if changed else f"{name} was {word} already")
    build_and_tell(folders)


def _set_fallback(folders: Folders, paths: list[str], *, on: bool) -> None:
    from toolkiln.discover import discover_tools
    from toolkiln.switches import set_fallback

    patterns = set_fallback(folders.config, paths, on)
    where = folders.config / "server.json"
    click.echo(f"discovery.fallback in {where}: {', '.join(map(repr, patterns)) or 'none'}")
    report = discover_tools(
        folders.tools,
        folders.config,
        prompts_dir=folders.existing(folders.prompts),
        resources_dir=folders.existing(folders.resources),
    )
    for problem in report.errors:
        echo_problem("error", problem)
    click.echo(f"discovered {counted(len(report.tools), 'tool')} in {folders.tools}")
    build_and_tell(folders)
