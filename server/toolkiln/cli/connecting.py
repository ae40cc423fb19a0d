"""`toolkiln config CLIENT`: the snippet an MCP client needs, or that snippet installed."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from toolkiln.cli.app import Folders, cli, echo_problem, folder_arguments, folder_options, paint
from toolkiln.clients import CLIENT_NAMES

if TYPE_CHECKING:
    from toolkiln.clients import ClientName


@cli.command("config")
@folder_options
@click.argument("client", type=click.Choice(CLIENT_NAMES), metavar="CLIENT")
@click.option("--http", is_flag=True, help="Connect to `toolkiln serve --http` instead of starting a server.")
@click.option(
    "--install", is_flag=True, help="Merge the entry into the client's config file (a backup first)."
)
@click.option("--name", default="toolkiln", show_default=True, help="The server's name in the client.")
@click.option(
    "--config-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The client's config file to install into [default: the client's own, listed above].",
)
@click.option(
    "--url",
    help="With --http: the server's URL [default: the running server's, else http://127.0.0.1:8765/mcp].",
)
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --http: the bearer token file [default: the running server's, else ~/.config/toolkiln/token].",
)
def config(
    folders: Folders,
    client: str,
    http: bool,
    install: bool,
    name: str,
    config_file: Path | None,
    url: str | None,
    token_file: Path | None,
) -> None:
    """Print the config entry that makes CLIENT use these tools; --install writes it.

    Over stdio (the default) the client starts `toolkiln serve` itself, with the absolute
    paths of this toolkiln and of the tools and config folders. With --http it connects
    to a running `toolkiln serve --http`, sending the bearer token (read from the token
    file that serve uses; made now if there is none yet, so the server will use it).

    \b
    claude-desktop  claude_desktop_config.json (~/.config/Claude/ on Linux,
                    ~/Library/Application Support/Claude/ on macOS); HTTP via npx mcp-remote
    claude-code     ~/.claude.json (user scope); --config-file .mcp.json for the project
    cursor          ~/.cursor/mcp.json
    vscode          .vscode/mcp.json in the current folder (key "servers")
    windsurf        ~/.codeium/windsurf/mcp_config.json
    json            a plain {"mcpServers": ...} snippet; install with --config-file

    --install changes only the entry called --name (other servers are kept), writes a
    timestamped backup of the file first, and does nothing when the entry is already there.
    """
    from toolkiln.clients import client_config

    if not http and (url or token_file):
        raise click.UsageError("--url and --token-file go with --http")
    chosen = client_config(
        cast("ClientName", client),
        name,
        tools_dir=folders.tools,
        config_dir=folders.config,
        http=http,
        url=url,
        token_file=token_file,
        config_file=config_file,
    )
    if chosen.http is not None and chosen.http.created_token:
        echo_problem(
            "info", f"made a new bearer token in {chosen.http.token_file}; `serve --http` will use it"
        )
    if not install:
        click.echo(json.dumps(chosen.snippet, indent=2))
        where = f"into {chosen.config_file}" if chosen.config_file else "into your client's config"
        click.echo(f"\nMerge this {where}, under {chosen.client.servers_key!r}, or run:", err=True)
        click.echo(f"  {_this_command(client, http, name, folders)} --install", err=True)
        if client == "claude-code":
            entry = shlex.quote(json.dumps(chosen.entry))
            click.echo(f"or: claude mcp add-json --scope user {shlex.quote(name)} {entry}", err=True)
        return
    result = chosen.install()
    if not result.changed:
        click.echo(f"{result.path} already has the server {name!r} as it should be; nothing changed")
        return
    verb = "replaced" if result.replaced else "added"
    click.echo(f"{paint(verb, 'green')} the server {name!r} in {result.path}")
    if result.backup:
        click.echo(f"backup of the previous file: {result.backup}")
    if chosen.http is not None and chosen.http.token:
        click.echo(f"{result.path} now holds the bearer token: keep it private")
    click.echo(f"next: {chosen.client.after_install}")


def _this_command(client: str, http: bool, name: str, folders: Folders) -> str:
    from toolkiln.clients import shell_launcher

    words = [client, *(["--http"] if http else []), *(["--name", name] if name != "toolkiln" else [])]
    words += [] if http else folder_arguments(folders)
    return f"{shell_launcher()} config {shlex.join(words)}"
