"""Running tools: call one from the command line, or serve them all to MCP clients."""

from __future__ import annotations

import dataclasses
import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from toolkiln import __version__
from toolkiln.cli.app import cli, folder_options, run_options
from toolkiln.errors import ConfigError, ToolkilnError
from toolkiln.files import catalog_path

if TYPE_CHECKING:
    from toolkiln.runner import Registry, RunSettings

logger = logging.getLogger("toolkiln")


@cli.command(context_settings={"ignore_unknown_options": False})
@folder_options
@run_options
@click.argument("name")
@click.argument("arguments", nargs=-1, metavar="[KEY=VALUE]...")
@click.option("--args", "json_args", metavar="JSON", help="All arguments as one JSON object: '{\"a\": 1}'.")
@click.option("--json", "as_json", is_flag=True, help="Print the whole result as JSON.")
def call(
    tools_dir: Path,
    config_dir: Path,
    timeout: float,
    max_output: int,
    script_config: tuple[str, ...],
    name: str,
    arguments: tuple[str, ...],
    json_args: str | None,
    as_json: bool,
) -> None:
    """Run tool NAME once, exactly as the server would, and print its result.

    Arguments are KEY=VALUE: strings as typed, other types as JSON (count=3,
    verbose=true, tags='["a","b"]'). Exits with status 1 when the tool fails.
    """
    import anyio

    from toolkiln.runner import Registry, call_tool
    from toolkiln.schema import parse_cli_value

    registry = Registry.load(catalog_path(config_dir))
    tool = registry.get(name)
    values: dict[str, Any] = _json_object_option(json_args) if json_args else {}
    parameters = {param.name: param for param in tool.parameters}
    for pair in arguments:
        key, separator, text = pair.partition("=")
        if not separator:
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="ARGUMENTS")
        values[key] = parse_cli_value(parameters.get(key), text)
    settings = _run_settings(registry, "cli", timeout, max_output, script_config)
    result = anyio.run(call_tool, registry, name, values, settings)
    if as_json:
        click.echo(json.dumps(dataclasses.asdict(result), indent=2, ensure_ascii=False))
    elif result.text:
        click.echo(result.text)
    if result.is_error:
        sys.exit(1)


def _json_object_option(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise click.BadParameter(f"not valid JSON: {error.msg}", param_hint="--args") from None
    if not isinstance(value, dict):
        raise click.BadParameter("must be a JSON object", param_hint="--args")
    return value


def _run_settings(
    registry: Registry, transport: str, timeout: float, max_output: int, pairs: tuple[str, ...]
) -> RunSettings:
    from toolkiln.runner import RunSettings, server_env

    script_config = {}
    for pair in pairs:
        key, separator, value = pair.partition("=")
        if not separator:
            raise ConfigError(f"--script-config {pair!r}: expected KEY=VALUE")
        script_config[key] = value
    env = server_env(
        tools_dir=registry.tools_dir,
        catalog_file=registry.catalog_file,
        transport=transport,
        log_level=logging.getLevelName(logging.getLogger().level),
        script_config=script_config,
    )
    return RunSettings(default_timeout=timeout, max_output_bytes=max_output, env=env)


@cli.command()
@folder_options
@run_options
@click.option(
    "--stdio", "transport", flag_value="stdio", default=True, help="Serve over stdin/stdout [default]."
)
@click.option(
    "--discover", "discover_first", is_flag=True, help="Run an incremental discover and build first."
)
@click.option(
    "--force-discover", is_flag=True, help="Run a full discover (every script re-read) and build first."
)
def serve(
    tools_dir: Path,
    config_dir: Path,
    timeout: float,
    max_output: int,
    script_config: tuple[str, ...],
    transport: str,
    discover_first: bool,
    force_discover: bool,
) -> None:
    """Serve the compiled tools to MCP clients.

    Loads only config/tools.json; no script is read or run until a client calls it.
    With --discover, a broken tool or a failed build is logged and the last good
    tools.json is served.
    """
    if discover_first or force_discover:
        _discover_and_build(tools_dir, config_dir, force=force_discover)

    import anyio

    from toolkiln.runner import Registry
    from toolkiln.serve import build_server, serve_stdio

    registry = Registry.load(catalog_path(config_dir))
    settings = _run_settings(registry, transport, timeout, max_output, script_config)
    _print_banner(registry, tools_dir, config_dir)
    anyio.run(serve_stdio, build_server(registry, settings))


def _discover_and_build(tools_dir: Path, config_dir: Path, *, force: bool) -> None:
    """The pipeline before serving; failures are logged, and the last good build is served."""
    from toolkiln.build import build_catalog
    from toolkiln.discover import discover_tools

    try:
        report = discover_tools(tools_dir, config_dir, force=force)
        for problem in report.errors:
            logger.error("discover: %s", problem)
        build_catalog(config_dir, tools_dir)
    except ToolkilnError as error:
        if not catalog_path(config_dir).exists():
            raise
        logger.error("%s\nserving the last good %s", error, catalog_path(config_dir))


def _print_banner(registry: Registry, tools_dir: Path, config_dir: Path) -> None:
    launcher = Path(sys.executable).with_name("toolkiln")
    command = [str(launcher)] if launcher.exists() else [sys.executable, "-m", "toolkiln"]
    entry = {
        "command": command[0],
        "args": [
            *command[1:],
            "serve",
            "--tools-dir",
            str(tools_dir.resolve()),
            "--config-dir",
            str(config_dir.resolve()),
        ],
    }
    snippet = json.dumps({"mcpServers": {"toolkiln": entry}}, indent=2)
    click.echo(
        f"toolkiln {__version__}: serving {len(registry.tools)} tools from {registry.tools_dir} over stdio.\n"
        f"To use them from an MCP client (Claude Desktop, Claude Code, Cursor, VS Code), add:\n{snippet}",
        err=True,
    )
