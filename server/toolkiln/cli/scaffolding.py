"""`toolkiln new`: a working tool from a template, discovered at once."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from toolkiln.cli.app import Folders, cli, folder_arguments, folder_options
from toolkiln.cli.folder_argument import folder_argument, served_folder
from toolkiln.cli.rebuilding import build_and_tell
from toolkiln.cli.rendering import echo_problem, paint

if TYPE_CHECKING:
    from toolkiln.scaffold import NewDialect

DIALECTS = ("annotations", "help-json", "python", "kit")


@cli.command()
@folder_options
@click.argument("name")
@folder_argument
@click.option(
    "--dialect",
    type=click.Choice(DIALECTS),
    default="annotations",
    show_default=True,
    help="How the script declares itself (docs/dialects.md).",
)
@click.option(
    "--template-dir",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="TOOLKILN_TEMPLATE_DIR",
    help="Folder of the templates [default: TEMPLATE/ beside the tools folder, for each dialect "
    "it has a template for; else toolkiln's own]. Env: TOOLKILN_TEMPLATE_DIR.",
)
def new(folders: Folders, name: str, dialect: str, template_dir: Path | None) -> None:
    """Create the tool NAME from a template, ready to run; discover it and build.

    \b
    annotations  tools/NAME/run.sh  bash, metadata in header comments
    help-json    tools/NAME.sh      bash that describes itself on --help
    python       tools/NAME.py      a module with execute(params)
    kit          tools/NAME.js      node, with Name/Description comments and a schema

    NAME: letters, digits, _ and - (a kit tool's: lower-case words joined by -). An
    existing tool or file of that name is never overwritten.
    """
    from toolkiln.discover import discover_tools
    from toolkiln.files import tool_config_path
    from toolkiln.scaffold import create_tool

    created = create_tool(name, cast("NewDialect", dialect), folders.tools, folders.config, template_dir)
    report = discover_tools(
        folders.tools,
        folders.config,
        prompts_dir=folders.existing(folders.prompts),
        resources_dir=folders.existing(folders.resources),
    )
    script_path = created.script.relative_to(folders.tools).as_posix()
    own = [error for error in report.errors if error.path == script_path]
    for error in own:
        echo_problem("error", error)
    if own or not any(tool.name == name for tool in report.tools):
        echo_problem("error", f"{created.script} was created but not discovered as the tool {name!r}")
        sys.exit(1)
    if len(report.errors) > len(own):
        echo_problem(
            "warning",
            f"discovery found {len(report.errors) - len(own)} problems elsewhere: run `toolkiln doctor`",
        )
    config_file = tool_config_path(folders.config, name)
    from toolkiln.scaffold import PACKAGED_TEMPLATE_DIR

    origin = "" if created.template.is_relative_to(PACKAGED_TEMPLATE_DIR) else f", from {created.template}"
    click.echo(
        f"{paint('created', 'green')} {created.script} ({dialect}, executable{origin}) "
        f"and its config {config_file}"
    )
    built = build_and_tell(folders)
    click.echo("\n".join(["", *_next_steps(folders, name, created.example, built)]))


def _next_steps(folders: Folders, name: str, example: tuple[str, ...], built: bool) -> list[str]:
    from toolkiln.clients import shell_launcher

    command = shell_launcher()
    served = served_folder()
    dirs = [str(served.root)] if served is not None else folder_arguments(folders)
    options = f" {shlex.join(dirs)}" if dirs else ""
    return [
        "Try it:",
        *([] if built else [f"  {command} build{options}"]),
        f"  {command} call {name}{options} {shlex.join(example)}",
        "Serve it:",
        f"  {command} serve{options}            # over stdio, as MCP clients start it",
        f"  {command} config claude-desktop --install{options}   # or claude-code, cursor, vscode, windsurf",
        f"  {command} serve --http{options}     # or over HTTP at http://127.0.0.1:8765/mcp",
        "Check it:",
        f"  {command} doctor{options}",
    ]
