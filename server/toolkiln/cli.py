"""The `toolkiln` command: each subcommand parses options, calls one stage, renders the result.

Heavy imports (the mcp SDK, jsonschema) happen inside the commands that need them,
so `discover`, `build`, `list` and `call` start fast.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click

from toolkiln import __version__
from toolkiln.errors import ConfigError, ToolkilnError
from toolkiln.files import catalog_path

logger = logging.getLogger("toolkiln")

F = TypeVar("F", bound=Callable[..., Any])
LOG_LEVELS = ("debug", "info", "warning", "error")


class _Cli(click.Group):
    """Turns toolkiln's own errors into a message and an exit status, in one place."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ToolkilnError as error:
            click.echo(f"toolkiln: error: {error}", err=True)
            ctx.exit(1)
        except KeyboardInterrupt:
            click.echo("toolkiln: interrupted", err=True)
            ctx.exit(130)


@click.group(cls=_Cli, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="toolkiln")
@click.option("-v", "--verbose", is_flag=True, help="Log debug details (what runs, how long it takes).")
@click.option(
    "--log-level", type=click.Choice(LOG_LEVELS), help="Log level on stderr [default: warning; serve: info]."
)
@click.pass_context
def cli(ctx: click.Context, verbose: bool, log_level: str | None) -> None:
    """Turn a folder of ordinary scripts into an MCP server.

    \b
    toolkiln discover   read tools/ and write config/tools/<name>.json
    toolkiln build      merge the enabled tools into config/tools.json
    toolkiln serve      serve config/tools.json to MCP clients
    """
    default = "info" if ctx.invoked_subcommand == "serve" else "warning"
    level = "debug" if verbose else (log_level or default)
    logging.basicConfig(
        stream=sys.stderr, level=level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )


def folder_options(function: F) -> F:
    """--tools-dir and --config-dir, on every command."""
    function = click.option(
        "--config-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default="config",
        show_default=True,
        envvar="TOOLKILN_CONFIG_DIR",
        help="Folder of the per-tool configs (tools/) and the compiled tools.json. Env: TOOLKILN_CONFIG_DIR.",
    )(function)
    return click.option(
        "--tools-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default="tools",
        show_default=True,
        envvar="TOOLKILN_TOOLS_DIR",
        help="Folder of the scripts. Env: TOOLKILN_TOOLS_DIR.",
    )(function)


def run_options(function: F) -> F:
    """Options that shape how tools run, shared by `serve` and `call`."""
    function = click.option(
        "--script-config",
        "script_config",
        multiple=True,
        metavar="KEY=VALUE",
        help="An env var every script gets (repeatable), as mcpd's --script-config.",
    )(function)
    function = click.option(
        "--max-output",
        type=click.IntRange(min=1024),
        default=1024 * 1024,
        show_default=True,
        help="Bytes of a tool's stdout kept; the rest is cut and the result says so.",
    )(function)
    return click.option(
        "--timeout",
        type=click.FloatRange(min=0, min_open=True),
        default=60.0,
        show_default=True,
        help="Seconds a tool may run when its config sets no timeout_seconds.",
    )(function)


# discover ---------------------------------------------------------------------------


@cli.command()
@folder_options
@click.option("--force", is_flag=True, help="Re-read every script, changed or not.")
@click.option("--list", "list_only", is_flag=True, help="Show each tool's status and write nothing.")
@click.option("--strict", is_flag=True, help="Exit with status 1 when a script could not be read.")
@click.option(
    "--probe-timeout", type=float, default=5.0, show_default=True, help="Seconds a `--help` probe may take."
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def discover(
    tools_dir: Path,
    config_dir: Path,
    force: bool,
    list_only: bool,
    strict: bool,
    probe_timeout: float,
    as_json: bool,
) -> None:
    """Read the scripts under the tools folder; write config/tools/<name>.json for each.

    Incremental: a script that has not changed since its config was written is not
    read again. Settings you edit in a per-tool config (enabled, tags, title, name,
    requires_confirmation, read_only, destructive, timeout_seconds, workspace_config)
    are kept on every rediscovery.
    """
    from toolkiln.discover import discover_tools

    with _progress_bar("probing scripts") as on_progress:
        report = discover_tools(
            tools_dir,
            config_dir,
            force=force,
            write=not list_only,
            probe_timeout=probe_timeout,
            on_progress=on_progress,
        )
    for problem in report.errors:
        click.echo(f"error: {problem}", err=True)
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    if as_json:
        click.echo(json.dumps([tool.__dict__ for tool in report.tools], indent=2))
    elif list_only:
        click.echo(_status_table(report.tools))
    else:
        counts = ", ".join(
            f"{report.count(change)} {change}"
            for change in ("created", "updated", "unchanged", "missing", "failed")
        )
        click.echo(
            f"discovered {len(report.tools)} tools in {tools_dir}: {counts}; {len(report.errors)} errors"
        )
    if strict and report.errors:
        sys.exit(1)


def _status_table(tools: list[Any]) -> str:
    rows: list[tuple[str, ...]] = [("CONFIG", "SCRIPT", "TOOL", "PATH", "DESCRIPTION")]
    for tool in tools:
        description = tool.description.splitlines()[0] if tool.description else ""
        rows.append(
            (
                "yes" if tool.has_config else "missing",
                "found" if tool.script_found else "missing",
                tool.name,
                tool.script_path,
                description[:60],
            )
        )
    return _table(rows) + "\n\nCONFIG: has a per-tool config file; SCRIPT: its script is in the tools folder."


def _table(rows: Sequence[tuple[str, ...]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join(
        "  ".join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)), row[-1]]) for row in rows
    )


@contextmanager
def _progress_bar(label: str) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on a terminal; nothing when stderr is a pipe or a file."""
    if not sys.stderr.isatty():
        yield None
        return
    bar: Any = None

    def update(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = click.progressbar(length=total, label=label, file=sys.stderr).__enter__()
        bar.update(done - bar.pos)

    try:
        yield update
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)


# build ------------------------------------------------------------------------------


@cli.command()
@folder_options
def build(tools_dir: Path, config_dir: Path) -> None:
    """Merge the enabled per-tool configs into config/tools.json.

    A config that is malformed fails the build with its file, line and field, and
    the previous tools.json stays as it was.
    """
    from toolkiln.build import build_catalog

    report = build_catalog(config_dir, tools_dir)
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    disabled = f" ({len(report.disabled)} disabled)" if report.disabled else ""
    click.echo(f"built {report.path} with {len(report.tools)} tools{disabled}")


# list -------------------------------------------------------------------------------


@cli.command("list")
@folder_options
@click.option("--json", "as_json", is_flag=True, help="Print the compiled tools as JSON.")
def list_tools(tools_dir: Path, config_dir: Path, as_json: bool) -> None:
    """List the tools in the compiled config/tools.json: what the server serves."""
    from toolkiln.files import load_catalog

    catalog = load_catalog(catalog_path(config_dir))
    if as_json:
        click.echo(json.dumps([tool.model_dump(mode="json") for tool in catalog.tools], indent=2))
        return
    rows: list[tuple[str, ...]] = [("TOOL", "ARGUMENTS", "DESCRIPTION")]
    for tool in catalog.tools:
        arguments = " ".join(f"{p.name}{'' if p.required else '?'}:{p.type}" for p in tool.parameters)
        rows.append(
            (tool.name, arguments or "-", tool.description.splitlines()[0] if tool.description else "")
        )
    click.echo(_table(rows))
    click.echo(f"\n{len(catalog.tools)} tools in {catalog_path(config_dir)}")


# call -------------------------------------------------------------------------------


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
        click.echo(json.dumps(result.__dict__, indent=2, ensure_ascii=False))
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
    registry: Any, transport: str, timeout: float, max_output: int, pairs: tuple[str, ...]
) -> Any:
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


# serve ------------------------------------------------------------------------------


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


def _print_banner(registry: Any, tools_dir: Path, config_dir: Path) -> None:
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


main = cli
