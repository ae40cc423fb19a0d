"""What `serve` tells the user on stderr: where it serves and how to connect a client."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from toolkiln import __version__
from toolkiln.wording import counted


def stdio_banner(
    tool_count: int,
    tools_dir: Path,
    config_dir: Path,
    *,
    folder: Path | None = None,
    full: bool | None = None,
) -> str:
    """`tools_dir`: the folder the served tools.json was built from (its own record), so
    that the snippet names it even when `serve` was given only --config-dir. `folder`: the
    DIR of `serve DIR`, which the snippet then names instead.

    `full` (by default: when stderr is a terminal) adds the client snippet. An MCP client
    that spawns the server logs each of its stderr lines on every start, so there the
    banner is one line."""
    headline = f"toolkiln {__version__}: serving {counted(tool_count, 'tool')} from {tools_dir} over stdio"
    if not (sys.stderr.isatty() if full is None else full):
        return f"{headline} (`toolkiln config CLIENT` prints a client's entry)."
    from toolkiln.clients import client_config, shell_launcher

    entry = client_config("json", "toolkiln", tools_dir=tools_dir, config_dir=config_dir, folder=folder)
    snippet = json.dumps(entry.snippet, indent=2)
    return (
        f"{headline}.\n"
        f"To use them from an MCP client (Claude Desktop, Claude Code, Cursor, VS Code), add:\n{snippet}\n"
        f"or let `{shell_launcher()} install CLIENT{_words(folder)}` write it into the client's config."
    )


def http_banner(
    tool_count: int, base_url: str, token_file: Path | None, stateless: bool, dashboard: bool = False
) -> str:
    from toolkiln.clients.launch import shell_launcher

    mcp_url = f"{base_url}/mcp"
    mode = "stateless " if stateless else ""
    tools = counted(tool_count, "tool")
    lines = [
        f"toolkiln {__version__}: serving {tools} at {mcp_url} ({mode}Streamable HTTP),",
        f"plain JSON-RPC at {base_url}/rpc, health at {base_url}/health.",
    ]
    if dashboard:
        login = " (log in with the token)" if token_file is not None else ""
        lines.append(f"Dashboard: open {base_url}/ in a browser{login}.")
    if token_file is None:
        lines += ["No authentication (--no-auth): anyone on this machine can call the tools.", ""]
        header, curl_header = "", ""
    else:
        token = f"$(cat {shlex.quote(str(token_file))})"
        header = f' --header "Authorization: Bearer {token}"'
        curl_header = f' -H "Authorization: Bearer {token}"'
        lines += [f"The bearer token is in {token_file} (send: Authorization: Bearer <token>).", ""]
    rpc = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    lines += [
        "Try it:",
        f"  curl -s {base_url}/rpc{curl_header} -H 'Content-Type: application/json' -d '{rpc}'",
        "Claude Code:",
        f"  claude mcp add --transport http toolkiln {mcp_url}{header}",
    ]
    vscode_server: dict[str, object] = {"type": "http", "url": mcp_url}
    cursor_server: dict[str, object] = {"url": mcp_url}
    vscode: dict[str, object] = {"servers": {"toolkiln": vscode_server}}
    if token_file is not None:
        vscode_server["headers"] = {"Authorization": "Bearer ${input:toolkiln-token}"}
        cursor_server["headers"] = {"Authorization": "Bearer ${env:TOOLKILN_TOKEN}"}
        vscode["inputs"] = [
            {
                "type": "promptString",
                "id": "toolkiln-token",
                "description": "toolkiln token",
                "password": True,
            }
        ]
    cursor = {"mcpServers": {"toolkiln": cursor_server}}
    lines += [
        "VS Code (.vscode/mcp.json; it asks for the token once):",
        _indent(json.dumps(vscode, indent=2)),
        "Cursor (~/.cursor/mcp.json):" + (f" first export TOOLKILN_TOKEN={token}" if token_file else ""),
        _indent(json.dumps(cursor, indent=2)),
        f"Or let `{shell_launcher()} install CLIENT --http` write it into a client's config.",
    ]
    return "\n".join(lines)


def _words(folder: Path | None) -> str:
    return f" {shlex.quote(str(folder))}" if folder is not None else ""


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())


def oauth_banner(banner: str, issuer: str, resource: str) -> str:
    """The HTTP banner's first lines, and what OAuth changes (docs/operations.md#oauth):
    clients sign in through the issuer; the token file is the dashboard's alone."""
    head = [line for line in banner.splitlines()[:3] if not line.startswith(("The bearer", "No auth"))]
    return "\n".join(
        [
            *head,
            f"OAuth: /mcp and /rpc take access tokens of {issuer} issued for {resource};",
            "MCP clients sign in there (they find it at /.well-known/oauth-protected-resource).",
        ]
    )
