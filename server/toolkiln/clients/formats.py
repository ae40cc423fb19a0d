"""What each MCP client's config file looks like, and where it is.

    client          file                                   servers    HTTP entry
    claude-desktop  claude_desktop_config.json (per OS)    mcpServers npx mcp-remote URL (no HTTP entries)
    claude-code     ~/.claude.json (user); .mcp.json       mcpServers type http, url, headers
    cursor          ~/.cursor/mcp.json                     mcpServers url, headers
    vscode          .vscode/mcp.json (workspace)           servers    type http, url, headers
    windsurf        ~/.codeium/windsurf/mcp_config.json    mcpServers serverUrl, headers
    gemini          ~/.gemini/settings.json; .gemini/...   mcpServers httpUrl, headers
    codex           $CODEX_HOME/config.toml (~/.codex/)    mcp_servers url, http_headers (TOML)
    json            (none: --config-file)                  mcpServers type http, url, headers

Over stdio every client takes `command` and `args`; Claude Code and VS Code also `type`.
Codex waits 10 s for a server to start unless told otherwise: its entries allow 60, as
`serve DIR` discovers and builds first, and `uvx` may download toolkiln on a first run.
Gemini CLI's `trust` (no confirmation before a tool runs) is left to the user to set.
"""

from __future__ import annotations

import ipaddress
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from toolkiln.clients.syntax import SYNTAXES, SyntaxName

ClientName = Literal[
    "claude-desktop", "claude-code", "cursor", "vscode", "windsurf", "gemini", "codex", "json"
]
Entry = dict[str, Any]


@dataclass(frozen=True)
class ClientFormat:
    name: ClientName
    servers_key: str
    config_file: Callable[[], Path | None]
    stdio_entry: Callable[[list[str]], Entry]
    http_entry: Callable[[str, str | None], Entry]  # (url, token)
    after_install: str
    syntax: SyntaxName = "json"


def _home(*parts: str) -> Callable[[], Path]:
    return lambda: Path.home().joinpath(*parts)


def _claude_desktop_file() -> Path:
    if sys.platform == "darwin":
        folder = Path.home() / "Library" / "Application Support" / "Claude"
    elif sys.platform == "win32":
        folder = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming") / "Claude"
    else:  # the Linux builds of Claude Desktop
        folder = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "Claude"
    return folder / "claude_desktop_config.json"


def _codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex") / "config.toml"


def _command(command: list[str]) -> Entry:
    return {"command": command[0], "args": command[1:]}


def _typed_command(command: list[str]) -> Entry:
    return {"type": "stdio", **_command(command)}


def _headers(token: str | None, key: str = "headers") -> Entry:
    return {key: {"Authorization": f"Bearer {token}"}} if token else {}


def _mcp_remote(url: str, token: str | None) -> Entry:
    """Claude Desktop's config has no HTTP servers: the `mcp-remote` bridge (npm) runs as a
    stdio server and forwards to the URL. The header goes through an env var, as its
    README advises (Windows splits arguments at spaces)."""
    args = ["-y", "mcp-remote", url]
    if token:
        args += ["--header", "Authorization:${AUTH_HEADER}"]
    if urlsplit(url).scheme == "http" and not _is_loopback_url(url):
        args.append("--allow-http")
    entry: Entry = {"command": "npx", "args": args}
    if token:
        entry["env"] = {"AUTH_HEADER": f"Bearer {token}"}
    return entry


def _is_loopback_url(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


CODEX_STARTUP_SECONDS = 60
RESTART = "restart {} (or reload its MCP servers) to pick it up"
CLIENTS: dict[ClientName, ClientFormat] = {
    "claude-desktop": ClientFormat(
        "claude-desktop",
        "mcpServers",
        _claude_desktop_file,
        _command,
        _mcp_remote,
        "quit and restart Claude Desktop to pick it up",
    ),
    "claude-code": ClientFormat(
        "claude-code",
        "mcpServers",
        _home(".claude.json"),
        lambda command: {**_typed_command(command), "env": {}},
        lambda url, token: {"type": "http", "url": url, **_headers(token)},
        "start a new Claude Code session; `claude mcp list` shows it",
    ),
    "cursor": ClientFormat(
        "cursor",
        "mcpServers",
        _home(".cursor", "mcp.json"),
        _command,
        lambda url, token: {"url": url, **_headers(token)},
        RESTART.format("Cursor"),
    ),
    "vscode": ClientFormat(
        "vscode",
        "servers",
        lambda: Path.cwd() / ".vscode" / "mcp.json",
        _typed_command,
        lambda url, token: {"type": "http", "url": url, **_headers(token)},
        "VS Code starts it from the MCP view or the Start button above the entry in mcp.json",
    ),
    "windsurf": ClientFormat(
        "windsurf",
        "mcpServers",
        _home(".codeium", "windsurf", "mcp_config.json"),
        _command,
        lambda url, token: {"serverUrl": url, **_headers(token)},
        RESTART.format("Windsurf"),
    ),
    "gemini": ClientFormat(
        "gemini",
        "mcpServers",
        _home(".gemini", "settings.json"),
        _command,
        lambda url, token: {"httpUrl": url, **_headers(token)},
        "start a new Gemini CLI session; `/mcp` lists its servers and tools",
    ),
    "codex": ClientFormat(
        "codex",
        "mcp_servers",
        _codex_home,
        lambda command: {**_command(command), "startup_timeout_sec": CODEX_STARTUP_SECONDS},
        lambda url, token: {"url": url, **_headers(token, "http_headers")},
        "start a new Codex session; `/mcp` lists its servers (`codex mcp list` too)",
        syntax="toml",
    ),
    "json": ClientFormat(
        "json",
        "mcpServers",
        lambda: None,
        _command,
        lambda url, token: {"type": "http", "url": url, **_headers(token)},
        "point your client at this file",
    ),
}
CLIENT_NAMES: tuple[ClientName, ...] = tuple(CLIENTS)


def snippet(client: ClientFormat, name: str, entry: Entry) -> str:
    """The whole config file's shape with just this server in it, in the file's syntax."""
    return SYNTAXES[client.syntax].snippet(client.servers_key, name, entry)
