"""Connecting MCP clients: the config snippet each client needs, and installing it.

No import of the server (or the mcp SDK): `toolkiln config` stays fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from toolkiln.clients.formats import CLIENT_NAMES, CLIENTS, ClientFormat, ClientName, Entry, snippet
from toolkiln.clients.install import InstallResult, install_server
from toolkiln.clients.launch import (
    HttpTarget,
    launcher,
    locate_http_server,
    serve_command,
    shell_launcher,
)
from toolkiln.errors import ConfigError
from toolkiln.vocabulary import TOOL_NAME_PATTERN

__all__ = [
    "CLIENTS",
    "CLIENT_NAMES",
    "ClientConfig",
    "ClientFormat",
    "ClientName",
    "HttpTarget",
    "InstallResult",
    "client_config",
    "install_server",
    "launcher",
    "serve_command",
    "shell_launcher",
]


@dataclass(frozen=True)
class ClientConfig:
    """One server's entry for one client, and the file it belongs in."""

    client: ClientFormat
    name: str
    entry: Entry
    config_file: Path | None
    http: HttpTarget | None  # None: the client starts the server over stdio

    @property
    def snippet(self) -> Entry:
        return snippet(self.client, self.name, self.entry)

    def install(self) -> InstallResult:
        if self.config_file is None:
            raise ConfigError(f"{self.client.name} has no config file of its own: pass --config-file PATH")
        private = self.http is not None and self.http.token is not None
        return install_server(
            self.config_file, self.client.servers_key, self.name, self.entry, private=private
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
) -> ClientConfig:
    """The entry that makes `client` use this toolkiln: spawned over stdio with absolute
    folders, or, with `http`, connecting to the HTTP server with its bearer token."""
    if not TOOL_NAME_PATTERN.match(name):
        raise ConfigError(f"server name {name!r}: use 1 to 64 letters, digits, _ and -")
    form = CLIENTS[client]
    target = locate_http_server(url, token_file) if http else None
    if target is not None:
        entry = form.http_entry(target.url, target.token)
    else:
        entry = form.stdio_entry(serve_command(tools_dir, config_dir))
    return ClientConfig(form, name, entry, config_file or form.config_file(), target)
