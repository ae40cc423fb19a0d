"""The environment every script gets from the server (seeds/000), under both the
`MCPD_CONFIG_*` names that mcpd scripts read and toolkiln's own `TOOLKILN_*` names.

Those two families are toolkiln's: a script gets only the names toolkiln sets for it
(`TOOL_VARIABLES`, and `--script-config`'s), never one from the server's own
environment, where they are the server's settings (`TOOLKILN_STATE_URL` with the Redis
password, `TOOLKILN_STATE_SECRET_FILE`, `TOOLKILN_TOKEN`, the folders), confined or not."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkiln import __version__
from toolkiln.conventions import launchers  # the module: it imports the runner package in turn
from toolkiln.conventions.words import text_form
from toolkiln.errors import ConfigError
from toolkiln.model import PARAM_NAME_PATTERN, CompiledTool, is_sensitive_env_name


def server_env(
    *,
    tools_dir: Path,
    catalog_file: Path,
    transport: str,
    log_level: str,
    host: str = "",
    port: int | None = None,
    http_base_path: str = "",
    https: bool = False,
    script_config: Mapping[str, str] | None = None,
) -> dict[str, str]:
    port_text = "" if port is None else str(port)
    env = {
        "MCPD_CONFIG_SERVER_HOST": host,
        "MCPD_CONFIG_SERVER_PORT": port_text,
        "MCPD_CONFIG_SERVER_HTTP_BASE_PATH": http_base_path,
        "MCPD_CONFIG_SERVER_HTTPS": "true" if https else "false",
        "MCPD_CONFIG_COMMANDS_ROOT_DIRECTORY": str(tools_dir),
        "MCPD_CONFIG_LOGGING_LEVEL_NAME": log_level.upper(),
        "MCPD_CONFIGURATION_FILENAME": str(catalog_file),
        "TOOLKILN_VERSION": __version__,
        "TOOLKILN_TRANSPORT": transport,
        "TOOLKILN_SERVER_HOST": host,
        "TOOLKILN_SERVER_PORT": port_text,
        "TOOLKILN_TOOLS_DIR": str(tools_dir),
        "TOOLKILN_CATALOG": str(catalog_file),
        "TOOLKILN_LOG_LEVEL": log_level.upper(),
    }
    for key, value in (script_config or {}).items():
        check_script_config_key(key)
        env[key] = value
    return env


# The server's own variables end with these: none reaches a script from its environment.
SERVER_PREFIXES = ("TOOLKILN_", "MCPD_")
# Every variable of those families that toolkiln sets for a script (docs/security.md).
TOOL_VARIABLES = frozenset(
    {
        *server_env(tools_dir=Path(), catalog_file=Path(), transport="", log_level=""),
        "TOOLKILN_TOOL_NAME",
        "TOOLKILN_TOOL_DIR",
        "TOOLKILN_RUN_ID",
        "TOOLKILN_ARGC_PYTHON",
    }
)


# The W3C trace context of a call, given to its script only when tracing is on
# (config/server.json `telemetry.tracing`), so that the script's own spans join the call's
# trace. Only `traceparent`, checked to be its exact form (version, trace id, span id,
# flags: hex digits): its trace id comes from the client's `_meta`, and nothing a client
# writes reaches a script's environment unless a parameter declares it. `tracestate` and
# baggage, free text a client chooses, never do; and with tracing on, what the server's own
# environment has under these names is dropped, not inherited.
TRACE_VARIABLES = ("TRACEPARENT", "TRACESTATE")
_TRACEPARENT = re.compile(r"00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}")


def with_trace_context(env: Mapping[str, str], context: Mapping[str, str]) -> dict[str, str]:
    """`env` with the call's `traceparent` as TRACEPARENT, in place of any inherited one."""
    traced = {key: value for key, value in env.items() if key not in TRACE_VARIABLES}
    traceparent = context.get("traceparent")
    if traceparent is not None and _TRACEPARENT.fullmatch(traceparent):
        traced["TRACEPARENT"] = traceparent
    return traced


def check_script_config_key(key: str) -> None:
    if not PARAM_NAME_PATTERN.match(key) or is_sensitive_env_name(key):
        raise ConfigError(
            f"--script-config {key}=...: {key!r} cannot be a script variable (it must be a plain "
            "name and must not replace PATH, HOME, LD_*, PYTHON*, GIT_* or the server's own "
            "variables: docs/security.md lists them)"
        )


def base_env(server: Mapping[str, str]) -> dict[str, str]:
    """The server's own environment without its settings (`SERVER_PREFIXES`), with the
    server variables: made once per runner, as reading `os.environ` decodes every
    variable again (~25 us a call with 35 of them)."""
    inherited = {key: value for key, value in os.environ.items() if not key.startswith(SERVER_PREFIXES)}
    return {**inherited, **server}


def script_env(
    base: Mapping[str, str], tool: CompiledTool, script: Path, arguments: Mapping[str, Any] | None
) -> dict[str, str]:
    """The whole environment of one run: `base` (see `base_env`), the tool's name and
    folder, and each argument (None: no arguments at all, as for `--state`; a parameter
    without a value is always unset)."""
    env = {**base, "TOOLKILN_TOOL_NAME": tool.name, "TOOLKILN_TOOL_DIR": str(script.parent)}
    for key, value in argument_env(tool, arguments or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    # Last: no argument may set what a shipped runtime reads (where llm-functions' tools
    # write, which SDK a tool sources), whatever its parameters are named.
    # (argc's shim first on PATH and LLM_OUTPUT; the mcp-bash SDK's variables.)
    launch = launchers.LAUNCHERS.get(launchers.convention_of(tool))
    if launch is not None and launch.env is not None:
        env = launch.env(env, arguments, script)
    return env


def argument_env(tool: CompiledTool, arguments: Mapping[str, Any]) -> dict[str, str | None]:
    """Each parameter as an env var; None unsets one the client left out, so a value
    inherited from the server's own environment never poses as an argument. A parameter
    the convention passes on stdin only (`Launch.stdin_only`) is not one."""
    launch = launchers.LAUNCHERS.get(launchers.convention_of(tool))
    stdin_only = launch is not None and launch.stdin_only is not None and launch.stdin_only(tool)
    return {
        p.name: text_form(arguments[p.name])
        if p.name in arguments and not (stdin_only and p.option is None)
        else None
        for p in tool.parameters
    }
