"""`toolkiln install CLIENT --env NAME`: a variable the tools need, passed through the
client's config by name, never by value unless the user gives one (`--env NAME=VALUE`).

A client starts `toolkiln serve` with the environment its config entry gives. Most
clients expand a reference to their own environment in an entry's `env` (each its own
syntax); Codex takes a list of names to pass (`env_vars`). Claude Desktop expands
nothing, so a name alone cannot reach the server from it: the folder's `.env` (mode
0600, read by the server) is the way there, or a value written into its config.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolkiln.clients.formats import ClientName, Entry
from toolkiln.errors import ConfigError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# How each client's config names a variable of the client's own environment (None: it cannot).
REFERENCES: dict[ClientName, str | None] = {
    "claude-code": "${%s}",  # .mcp.json and ~/.claude.json: ${VAR} and ${VAR:-default}
    "cursor": "${env:%s}",
    "vscode": "${env:%s}",
    "windsurf": "${env:%s}",
    "gemini": "${%s}",  # settings.json: $VAR and ${VAR}
    "json": "${%s}",
    "claude-desktop": None,
    "codex": None,  # env_vars = ["NAME"] instead
}


def parse_env_options(options: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """`--env NAME` (passed through) and `--env NAME=VALUE` (the value written)."""
    names: list[str] = []
    values: dict[str, str] = {}
    for option in options:
        name, separator, value = option.partition("=")
        if not _NAME.match(name):
            raise ConfigError(f"--env {option!r}: expected NAME or NAME=VALUE (NAME: letters, digits and _)")
        if separator:
            values[name] = value
        elif name not in names:
            names.append(name)
    return names, values


def with_env(client: ClientName, entry: Entry, names: Sequence[str], values: dict[str, str]) -> Entry:
    """`entry` that passes `names` through from the client's environment, and sets `values`."""
    if not names and not values:
        return entry
    env = dict(entry.get("env") or {})
    env.update(values)
    extra: Entry = {}
    if names and client == "codex":
        extra["env_vars"] = [*entry.get("env_vars", []), *names]
    elif names:
        reference = REFERENCES[client]
        if reference is None:
            raise ConfigError(
                f"--env {names[0]}: Claude Desktop cannot pass a variable through from its environment "
                "(its config holds values only): put it in the folder's .env (mode 600), which "
                f"`toolkiln serve` reads, or give --env {names[0]}=VALUE to write the value into its config"
            )
        env.update({name: reference % name for name in names})
    return {**entry, **({"env": env} if env else {}), **extra}
