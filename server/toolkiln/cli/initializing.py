"""`toolkiln init [DIR]`: a ready project, discovered and built, and what to type next."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from toolkiln.cli.app import Folders, cli
from toolkiln.cli.rendering import echo_problem, paint


@cli.command()
@click.argument("folder", metavar="[DIR]", default=".", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--merge",
    is_flag=True,
    help="Add the missing pieces to a folder that holds other files and is not a project yet.",
)
def init(folder: Path, merge: bool) -> None:
    """Make DIR (default: this folder) a toolkiln project, ready to serve.

    \b
    DIR/tools/now/run.sh   a starter tool (the date and time in any time zone),
                           documented, in the annotations dialect
    DIR/config/            toolkiln's configs: config/tools/<name>.json are yours to edit
    DIR/.gitignore         leaves out what toolkiln generates (config/tools.json,
                           config/.discovery.json, config/logs/)

    Then the tools are discovered and built, so `toolkiln serve` works at once. Add
    DIR/prompts/ and DIR/resources/ when you want MCP prompts and resources.

    Nothing that exists is ever overwritten: in a project (a folder with tools/ or
    config/) only the missing pieces are added, and init says what it kept. DIR may be
    new or empty (hidden files such as .git/ aside); any other folder is refused unless
    --merge, so init in the wrong folder writes nothing.
    """
    from toolkiln.build.merge import build_catalog
    from toolkiln.discover import discover_tools
    from toolkiln.project import create_project

    report = create_project(folder, merge=merge)
    root = report.root
    for name in report.created:
        click.echo(f"{paint('created', 'green')} {_shown(root, name)}")
    for name in report.kept:
        click.echo(f"{paint('kept', 'cyan')}    {_shown(root, name)} (already there, left as it was)")
    if report.missing_ignores:
        echo_problem(
            "info",
            f"{root / '.gitignore'} was kept; to leave toolkiln's generated files out of git, "
            f"add: {' '.join(report.missing_ignores)}",
        )
    folders = Folders(root / "tools", root / "config", root / "prompts", root / "resources")
    discovered = discover_tools(
        folders.tools,
        folders.config,
        prompts_dir=folders.existing(folders.prompts),
        resources_dir=folders.existing(folders.resources),
    )
    for problem in discovered.errors:
        echo_problem("error", problem)
    if not discovered.tools:
        click.echo(f"no tools in {folders.tools} yet: `toolkiln new NAME` writes one")
        return
    built = build_catalog(
        folders.config, folders.tools, folders.existing(folders.prompts), folders.existing(folders.resources)
    )
    for refusal in built.errors:
        echo_problem("error", refusal)
    names = ", ".join(tool.name for tool in built.tools)
    count = f"{len(built.tools)} tool{'' if len(built.tools) == 1 else 's'} ({names})"
    click.echo(f"{paint('built', 'green')} {folders.config / 'tools.json'}: {count}")
    click.echo("\n".join(["", *_next_steps(root, [tool.name for tool in built.tools])]))
    if discovered.errors or built.errors:
        echo_problem("warning", "some tools have problems: run `toolkiln doctor` in the project")
        sys.exit(1)


def _shown(root: Path, name: str) -> str:
    """`proj/tools/` for the folder `tools/` of the project `proj`."""
    return f"{root / name}/" if name.endswith("/") else str(root / name)


def _next_steps(root: Path, tools: list[str]) -> list[str]:
    from toolkiln.clients import shell_launcher
    from toolkiln.project import STARTER_TOOL

    command = shell_launcher()
    steps: list[tuple[str, str]] = []
    if root.resolve() != Path.cwd().resolve():
        steps.append((f"cd {shlex.quote(str(root))}", ""))
    if STARTER_TOOL in tools:
        steps.append((f"{command} call {STARTER_TOOL} timezone=Europe/Paris", "run a tool as a client would"))
    steps += [
        (f"{command} serve", "serve the tools over stdio, as MCP clients start it"),
        (f"{command} serve --http", "or over HTTP, with a dashboard at http://127.0.0.1:8765/"),
        (
            f"{command} install CLIENT",
            "connect claude-desktop, claude-code, cursor, vscode, gemini, codex...",
        ),
        (f"{command} new NAME", "another tool, from a template (--dialect python, ...)"),
        (f"{command} doctor", "when something does not work"),
    ]
    width = max(len(line) for line, _ in steps)
    return ["Next:", *(f"  {line.ljust(width)}  # {why}" if why else f"  {line}" for line, why in steps)]
