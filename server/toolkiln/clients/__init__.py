"""Connecting MCP clients: the config snippet each client needs, and installing it.

No import of the server (or the mcp SDK): `toolkiln config` stays fast. Each name below
loads its module when first asked for: `serve`'s banner needs `shell_launcher` alone, not
every client's file format (~7 ms of each start when the package loaded them all).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolkiln.clients.config import ClientConfig, check_folder, client_config
    from toolkiln.clients.formats import CLIENT_NAMES, CLIENTS, ClientFormat, ClientName
    from toolkiln.clients.install import InstallResult, install_server
    from toolkiln.clients.launch import (
        LAUNCHERS,
        HttpTarget,
        Launch,
        Launcher,
        choose_launcher,
        launcher,
        serve_command,
        shell_launcher,
    )

# Each public name, and the module of this package that holds it.
_HOMES = {
    **dict.fromkeys(("ClientConfig", "check_folder", "client_config"), "config"),
    **dict.fromkeys(("CLIENTS", "CLIENT_NAMES", "ClientFormat", "ClientName"), "formats"),
    **dict.fromkeys(("InstallResult", "install_server"), "install"),
    **dict.fromkeys(
        (
            "LAUNCHERS",
            "HttpTarget",
            "Launch",
            "Launcher",
            "choose_launcher",
            "launcher",
            "serve_command",
            "shell_launcher",
        ),
        "launch",
    ),
}

__all__ = [
    "CLIENTS",
    "CLIENT_NAMES",
    "LAUNCHERS",
    "ClientConfig",
    "ClientFormat",
    "ClientName",
    "HttpTarget",
    "InstallResult",
    "Launch",
    "Launcher",
    "check_folder",
    "choose_launcher",
    "client_config",
    "install_server",
    "launcher",
    "serve_command",
    "shell_launcher",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
