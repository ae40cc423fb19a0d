"""One server's entry for one client: the snippet to paste, and installing it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from toolkiln.clients.formats import CLIENTS, ClientFormat, ClientName, Entry, snippet
from toolkiln.clients.install import InstallResult, install_server
from toolkiln.clients.launch import (
    HttpTarget,
    Launch,
    Launcher,
    choose_launcher,
    locate_http_server,
    serve_command,
    serve_folder_command,
)
from toolkiln.errors import ConfigError
from toolkiln.vocabulary import TOOL_NAME_PATTERN


@dataclass(frozen=True)
class ClientConfig:
    """One server's entry for one client, and the file it belongs in."""

    client: ClientFormat
    name: str
    entry: Entry
    config_file: Path | None
    http: HttpTarget | None  # None: the client starts the server over stdio
    launch: Launch | None = None  # over stdio: how the client starts toolkiln

    @property
    def snippet(self) -> Entry:
        """The whole config file's shape with just this server in it."""
        return {self.client.servers_key: {self.name: self.entry}}

    @property
    def snippet_text(self) -> str:
        """`snippet` in the client file's own syntax (JSON or TOML), to paste."""
        return snippet(self.client, self.name, self.entry)

    def install(self) -> InstallResult:
        if self.config_file is None:
            raise ConfigError(f"{self.client.name} has no config file of its own: pass --config-file PATH")
        private = self.http is not None and self.http.token is not None
        return install_server(
            self.config_file,
            self.client.servers_key,
            self.name,
            self.entry,
            private=private,
            syntax=self.client.syntax,
        )


def client_config(
    client: ClientName,
    name: str,
    *,
    tools_dir: Path,
    config_dir: Path,
    http: bool = False,
    url: str | None = None,
    token_file: Path | None = None,
    config_file: Path | None = None,
    folder: Path | None = None,
    launch: Launcher = "auto",
) -> ClientConfig:
    """The entry that makes `client` use this toolkiln: spawned over stdio with absolute
    folders (`serve DIR` when a `folder` of scripts is given; started as `launch` says),
    or, with `http`, connecting to the HTTP server with its bearer token."""
    if not TOOL_NAME_PATTERN.match(name):
        raise ConfigError(f"server name {name!r}: use 1 to 64 letters, digits, _ and -")
    form = CLIENTS[client]
    if http:
        target = locate_http_server(url, token_file)
        entry = form.http_entry(target.url, target.token)
        return ClientConfig(form, name, entry, config_file or form.config_file(), target)
    start = choose_launcher(launch)
    if folder is not None:
        command = serve_folder_command(check_folder(folder), start.command)
    else:
        command = serve_command(tools_dir, config_dir, start.command)
    entry = form.stdio_entry(command)
    return ClientConfig(form, name, entry, config_file or form.config_file(), None, start)


def check_folder(folder: Path) -> Path:
    """`folder` made absolute, symlinks resolved; a `ConfigError` unless it is a folder."""
    resolved = folder.expanduser().resolve()
    if not resolved.exists():
        raise ConfigError(f"{folder}: no such folder; give the folder of your scripts")
    if not resolved.is_dir():
        raise ConfigError(f"{folder}: not a folder; give the folder of your scripts, not one file")
    return resolved
