"""`toolkiln config CLIENT [DIR]`: the entry an MCP client needs, or that entry installed;
`toolkiln install CLIENT [DIR]` is the short form of `config CLIENT [DIR] --install`."""

from __future__ import annotations

import dataclasses
import json
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import click
from click.core import ParameterSource

from toolkiln.cli.app import Folders, cli, folder_arguments, folder_options
from toolkiln.cli.rendering import echo_problem, paint

if TYPE_CHECKING:
    from toolkiln.clients import ClientConfig, ClientName, InstallResult, Launcher

CLIENT_HELP = """
    Over stdio (the default) the client starts toolkiln itself: `toolkiln serve DIR`
    when a folder of scripts DIR is given (it discovers, builds and serves that folder),
    else `toolkiln serve` with the absolute paths of the tools and config folders. With
    --http it connects to a running `toolkiln serve --http`, sending the bearer token
    (read from the token file that serve uses; made now if there is none yet).

    \b
    claude-desktop  claude_desktop_config.json (~/.config/Claude/ on Linux,
                    ~/Library/Application Support/Claude/ on macOS); HTTP via npx mcp-remote
    claude-code     ~/.claude.json (user scope); --config-file .mcp.json for the project
    cursor          ~/.cursor/mcp.json
    vscode          .vscode/mcp.json in the current folder (key "servers")
    windsurf        ~/.codeium/windsurf/mcp_config.json
    gemini          ~/.gemini/settings.json; --config-file .gemini/settings.json for the project
    codex           ~/.codex/config.toml ($CODEX_HOME/config.toml), TOML [mcp_servers.NAME]
    json            a plain {"mcpServers": ...} snippet; install with --config-file

    \b
    How the client starts toolkiln (--launcher):
      auto  `uvx toolkiln` or `pipx run toolkiln` when this toolkiln runs from their
            throwaway environment (its path would vanish), else its own path [default]
      path  the absolute path of this toolkiln (a venv, `uv tool`/`pipx install`)
      uvx   `uvx toolkiln` (`--from` the folder, file or VCS URL it was installed from)
      pipx  `pipx run toolkiln` (likewise with `--spec`)

    Installing changes only the entry called --name (other servers, keys and comments are
    kept), writes a timestamped private backup of the file first, and does nothing when
    the entry is already there. A file given a bearer token is made private (mode 0600).
"""


class _ClientsChoice(click.Choice[str]):
    """A choice among names the clients package holds, loaded when first asked for: every
    command starts without importing that package (the client formats, the launchers)."""

    def __init__(self, name: str) -> None:
        super().__init__((), case_sensitive=True)
        self._name = name

    @property
    def choices(self) -> tuple[str, ...]:
        import toolkiln.clients

        return tuple(getattr(toolkiln.clients, self._name))

    @choices.setter
    def choices(self, _: Any) -> None:
        pass  # click's own __init__ sets them: they are read from the package instead


def connect_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """CLIENT, DIR and the options `config` and `install` share."""
    options = [
        click.argument("client", type=_ClientsChoice("CLIENT_NAMES"), metavar="CLIENT"),
        click.argument(
            "folder",
            required=False,
            metavar="[DIR]",
            type=click.Path(file_okay=False, path_type=Path),
        ),
        click.option(
            "--http", is_flag=True, help="Connect to `toolkiln serve --http` instead of starting a server."
        ),
        click.option(
            "--env",
            "env",
            multiple=True,
            metavar="NAME[=VALUE]",
            help="A variable the tools need, passed through from the client's environment by name "
            "(repeatable); NAME=VALUE writes the value into the client's config instead. Secrets "
            "are better kept in the folder's .env (mode 600), which the server reads "
            "(docs/configuration.md).",
        ),
        click.option(
            "--name", default="toolkiln", show_default=True, help="The server's name in the client."
        ),
        click.option(
            "--config-file",
            type=click.Path(dir_okay=False, path_type=Path),
            help="The client's config file to install into [default: the client's own, listed above].",
        ),
        click.option(
            "--launcher",
            type=_ClientsChoice("LAUNCHERS"),
            default="auto",
            show_default=True,
            help="How the client starts toolkiln over stdio (see above).",
        ),
        click.option(
            "--url",
            help="With --http: the server's URL [default: the running server's, else "
            "http://127.0.0.1:8765/mcp].",
        ),
        click.option(
            "--token-file",
            type=click.Path(dir_okay=False, path_type=Path),
            help="With --http: the bearer token file [default: the running server's, else "
            "~/.config/toolkiln/token].",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return folder_options(function)


@cli.command("config")
@connect_options
@click.option(
    "--install", is_flag=True, help="Merge the entry into the client's config file (a backup first)."
)
def config(install: bool, **options: Any) -> None:
    """Print the config entry that makes CLIENT use these tools; --install writes it."""
    _connect(install=install, **options)


@cli.command("install")
@connect_options
def install(**options: Any) -> None:
    """Install the entry that makes CLIENT use these tools: `config CLIENT --install`."""
    _connect(install=True, **options)


config.help = f"{config.help}\n{CLIENT_HELP}"
install.help = f"{install.help}\n{CLIENT_HELP}"


def _connect(
    *,
    folders: Folders,
    client: str,
    folder: Path | None,
    http: bool,
    install: bool,
    name: str,
    config_file: Path | None,
    launcher: str,
    url: str | None,
    token_file: Path | None,
    env: tuple[str, ...],
) -> None:
    from toolkiln.clients import client_config
    from toolkiln.clients.env_pass import parse_env_options, with_env

    if not http and (url or token_file):
        raise click.UsageError("--url and --token-file go with --http")
    if http and env:
        raise click.UsageError(
            "--env goes with the stdio form: with --http, start the server with the variable"
        )
    names, values = parse_env_options(env)
    if folder is not None and http:
        raise click.UsageError(
            "DIR goes with the stdio form (the client starts `toolkiln serve DIR`); with --http "
            "the client connects to the server you start: toolkiln serve DIR --http"
        )
    context = click.get_current_context()
    if folder is not None and any(
        context.get_parameter_source(option) == ParameterSource.COMMANDLINE
        for option in ("tools_dir", "config_dir")
    ):
        raise click.UsageError("give DIR or --tools-dir/--config-dir, not both")
    chosen = client_config(
        cast("ClientName", client),
        name,
        tools_dir=folders.tools,
        config_dir=folders.config,
        http=http,
        url=url,
        token_file=token_file,
        config_file=config_file,
        folder=folder,
        launch=cast("Launcher", launcher),
    )
    chosen = dataclasses.replace(chosen, entry=with_env(chosen.client.name, chosen.entry, names, values))
    if chosen.http is not None and chosen.http.created_token:
        echo_problem(
            "info", f"made a new bearer token in {chosen.http.token_file}; `serve --http` will use it"
        )
    if chosen.launch is not None and chosen.launch.detected:
        echo_problem(
            "info",
            f"this toolkiln runs from {chosen.launch.how}'s temporary environment, which a cache "
            f"clean removes: the client will start it with `{shlex.join(chosen.launch.command)}` "
            "(--launcher path keeps this one's path)",
        )
    if not install:
        _show(chosen, _install_command(chosen, folder, launcher, folders, env))
        return
    _report(chosen, chosen.install(), folder)
    if values:
        echo_problem(
            "warning",
            f"{chosen.config_file} now holds the value of {', '.join(values)}: keep it private "
            f"(chmod 600 {shlex.quote(str(chosen.config_file))}), or keep secrets in the folder's .env "
            "instead",
        )


def _show(chosen: ClientConfig, install_command: str) -> None:
    click.echo(chosen.snippet_text.rstrip("\n"))
    where = f"into {chosen.config_file}" if chosen.config_file else "into your client's config"
    key = chosen.client.servers_key
    under = f"as its [{key}.{chosen.name}] table" if chosen.client.syntax == "toml" else f"under {key!r}"
    click.echo(f"\nMerge this {where}, {under}, or run:", err=True)
    click.echo(f"  {install_command}", err=True)
    if chosen.client.name == "claude-code":
        entry = shlex.quote(json.dumps(chosen.entry))
        click.echo(f"or: claude mcp add-json --scope user {shlex.quote(chosen.name)} {entry}", err=True)


def _report(chosen: ClientConfig, result: InstallResult, folder: Path | None) -> None:
    name = chosen.name
    if not result.changed:
        click.echo(f"{result.path} already has the server {name!r} as it should be; nothing changed")
    else:
        verb = "replaced" if result.replaced else "added"
        click.echo(f"{paint(verb, 'green')} the server {name!r} in {result.path}")
        if result.backup:
            click.echo(f"backup of the previous file: {result.backup}")
    holds_token = chosen.http is not None and chosen.http.token
    if holds_token and result.made_private is not None:
        click.echo(
            f"made {result.path} private (mode {result.made_private & 0o700:o}; it was "
            f"{result.made_private:o}): it holds the token"
        )
    if holds_token and result.exposed is not None:
        echo_problem(
            "warning",
            f"{result.path} holds the bearer token, and other users can read it (mode "
            f"{result.exposed:o}) and toolkiln could not change that: "
            f"chmod 600 {shlex.quote(str(result.path))}",
        )
    elif holds_token and result.changed and result.made_private is None:
        click.echo(f"{result.path} now holds the bearer token: keep it private")
    if result.changed:
        click.echo(f"next: {chosen.client.after_install}")
    if chosen.client.name == "gemini":
        from toolkiln.clients.gemini_trust import gemini_trust_hint

        hint = gemini_trust_hint(folder or Path.cwd())
        if hint:
            echo_problem("info", hint)


def _install_command(
    chosen: ClientConfig, folder: Path | None, launcher: str, folders: Folders, env: tuple[str, ...]
) -> str:
    """The `install` command line that writes what `config` just showed."""
    from toolkiln.clients import shell_launcher

    http = chosen.http is not None
    words = [chosen.client.name, *([str(folder)] if folder is not None else [])]
    words += [*(["--http"] if http else []), *(["--name", chosen.name] if chosen.name != "toolkiln" else [])]
    words += ["--launcher", launcher] if launcher != "auto" and not http else []
    words += [
        word for name in env for word in ("--env", name.partition("=")[0] + ("=VALUE" if "=" in name else ""))
    ]
    words += [] if http or folder is not None else folder_arguments(folders)
    if chosen.config_file is None:
        words += ["--config-file", "PATH"]
    elif chosen.config_file != chosen.client.config_file():
        words += ["--config-file", str(chosen.config_file)]
    return f"{shell_launcher()} install {shlex.join(words)}"
