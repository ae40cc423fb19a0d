"""`toolkiln serve` (stdio or HTTP) and `toolkiln audit` (what the server did)."""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from toolkiln.cli.app import Folders, RunOptions, cli, first_line, folder_options, render_table, run_options
from toolkiln.cli.banner import http_banner, stdio_banner
from toolkiln.errors import ConfigError, ToolkilnError
from toolkiln.files import catalog_path

if TYPE_CHECKING:
    from toolkiln.audit import AuditLog
    from toolkiln.runner import Registry

logger = logging.getLogger("toolkiln")

AUDIT_FILE = Path("logs") / "audit.jsonl"


@dataclass(frozen=True)
class HttpOptions:
    host: str
    port: int
    stateless: bool
    token_file: Path | None
    no_auth: bool
    allow_origin: tuple[str, ...]
    allow_host: tuple[str, ...]
    tls_cert: Path | None
    tls_key: Path | None
    max_body: int


def http_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """The options of `serve --http`, handed to the command as `http`."""
    names = [field for field in HttpOptions.__dataclass_fields__]

    @functools.wraps(function)
    def command(*args: Any, **kwargs: Any) -> Any:
        http = HttpOptions(**{name: kwargs.pop(name) for name in names})
        return function(*args, http=http, **kwargs)

    file = click.Path(dir_okay=False, path_type=Path)
    options = [
        click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (HTTP)."),
        click.option(
            "--port",
            type=click.IntRange(0, 65535),
            default=8765,
            show_default=True,
            help="Port; 0 picks a free one.",
        ),
        click.option(
            "--stateless", is_flag=True, help="No server-side sessions (replicas behind a load balancer)."
        ),
        click.option(
            "--token-file", type=file, help="Bearer token file [default: ~/.config/toolkiln/token]."
        ),
        click.option(
            "--no-auth", is_flag=True, help="Accept requests without a token (loopback hosts only)."
        ),
        click.option(
            "--allow-origin", multiple=True, metavar="ORIGIN", help="Also accept this Origin (repeatable)."
        ),
        click.option(
            "--allow-host", multiple=True, metavar="HOST[:PORT]", help="Also accept this Host header."
        ),
        click.option(
            "--tls-cert", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Serve HTTPS."
        ),
        click.option(
            "--tls-key", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Its key."
        ),
        click.option(
            "--max-body",
            type=click.IntRange(min=1024),
            default=4 * 1024 * 1024,
            show_default=True,
            help="Largest request body in bytes; bigger ones get 413.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@cli.command()
@folder_options
@run_options
@click.option(
    "--stdio", "transport", flag_value="stdio", default=True, help="Serve over stdin/stdout [default]."
)
@click.option(
    "--http", "transport", flag_value="http", help="Serve Streamable HTTP at /mcp, plus /rpc and /health."
)
@http_options
@click.option(
    "--max-concurrency",
    type=click.IntRange(min=1),
    help="Tool processes at once [default: twice the CPU count].",
)
@click.option(
    "--audit-log",
    type=click.Path(dir_okay=False, path_type=Path),
    help="[default: CONFIG_DIR/logs/audit.jsonl]",
)
@click.option("--no-audit", is_flag=True, help="Keep no audit log.")
@click.option(
    "--discover", "discover_first", is_flag=True, help="Run an incremental discover and build first."
)
@click.option(
    "--force-discover", is_flag=True, help="Run a full discover (every script re-read) and build first."
)
def serve(
    folders: Folders,
    run: RunOptions,
    transport: str,
    http: HttpOptions,
    max_concurrency: int | None,
    audit_log: Path | None,
    no_audit: bool,
    discover_first: bool,
    force_discover: bool,
) -> None:
    """Serve the compiled tools to MCP clients, over stdio (what clients spawn) or HTTP.

    Loads only config/tools.json; no script is read or run until a client calls it.
    With --discover, a broken tool or a failed build is logged and the last good
    tools.json is served. Every tool call, and over HTTP every denied request, is
    written to the audit log.
    """
    if discover_first or force_discover:
        _discover_and_build(folders, force=force_discover)

    import anyio

    from toolkiln.audit import AuditLog
    from toolkiln.runner import Registry, ToolRunner
    from toolkiln.serve import ToolService, serve_stdio

    registry = Registry.load(catalog_path(folders.config))
    audit = None if no_audit else AuditLog(audit_log or folders.config / AUDIT_FILE)
    if transport == "stdio":
        service = ToolService(ToolRunner(registry, run.settings(registry, "stdio", max_concurrency)), audit)
        click.echo(
            stdio_banner(len(registry.tools), registry.tools_dir, folders.tools, folders.config), err=True
        )
        anyio.run(serve_stdio, service)
    else:
        anyio.run(_serve_http, registry, run, http, max_concurrency, audit)


async def _serve_http(
    registry: Registry,
    run: RunOptions,
    http: HttpOptions,
    max_concurrency: int | None,
    audit: AuditLog | None,
) -> None:
    from toolkiln.runner import ToolRunner
    from toolkiln.serve import (
        Admission,
        HttpSettings,
        ToolService,
        bind,
        default_state_dir,
        is_loopback,
        load_or_create_token,
        serve_http,
    )

    if (http.tls_cert is None and http.tls_key is not None) or (
        http.tls_cert is not None and http.tls_key is None
    ):
        raise ConfigError("--tls-cert and --tls-key go together")
    if not is_loopback(http.host):
        if http.no_auth:
            raise ConfigError(
                f"--no-auth is refused on {http.host}: only a loopback address may skip the token"
            )
        logger.warning("listening on %s, beyond this machine: every request needs the token", http.host)
    state_dir = http.token_file.parent if http.token_file else default_state_dir()
    token_file = None if http.no_auth else (http.token_file or state_dir / "token")
    token = load_or_create_token(token_file) if token_file else None
    listener = bind(http.host, http.port)
    port = listener.getsockname()[1]
    settings = HttpSettings(
        host=http.host,
        port=port,
        stateless=http.stateless,
        tls_cert=http.tls_cert,
        tls_key=http.tls_key,
        max_body_bytes=http.max_body,
        server_file=state_dir / "server.json",
        token_file=token_file,
    )
    server_vars = {"host": http.host, "port": port, "https": http.tls_cert is not None}
    runner = ToolRunner(registry, run.settings(registry, "http", max_concurrency, **server_vars))
    admission = Admission.for_bind(
        http.host, token, extra_hosts=http.allow_host, extra_origins=http.allow_origin
    )

    def on_ready(base_url: str) -> None:
        click.echo(http_banner(len(registry.tools), base_url, token_file, http.stateless), err=True)

    await serve_http(ToolService(runner, audit), admission, settings, listener, on_ready)


def _discover_and_build(folders: Folders, *, force: bool) -> None:
    """The pipeline before serving; failures are logged, and the last good build is served."""
    from toolkiln.build import build_catalog
    from toolkiln.discover import discover_tools

    try:
        prompts, resources = folders.existing(folders.prompts), folders.existing(folders.resources)
        report = discover_tools(
            folders.tools, folders.config, force=force, prompts_dir=prompts, resources_dir=resources
        )
        for problem in report.errors:
            logger.error("discover: %s", problem)
        build_catalog(folders.config, folders.tools, prompts, resources)
    except ToolkilnError as error:
        if not catalog_path(folders.config).exists():
            raise
        logger.error("%s\nserving the last good %s", error, catalog_path(folders.config))


@cli.command()
@folder_options
@click.option(
    "--audit-log",
    type=click.Path(dir_okay=False, path_type=Path),
    help="[default: CONFIG_DIR/logs/audit.jsonl]",
)
@click.option("--tail", type=click.IntRange(min=1), help="Only the last N records.")
@click.option("--tool", help="Only the calls of this tool.")
@click.option("--json", "as_json", is_flag=True, help="Print the records as JSON lines.")
def audit(
    folders: Folders,
    audit_log: Path | None,
    tail: int | None,
    tool: str | None,
    as_json: bool,
) -> None:
    """Show the audit log: every tool call and every denied request, oldest first."""
    from toolkiln.audit import read_audit

    path = audit_log or folders.config / AUDIT_FILE
    if not path.exists():
        raise ConfigError(f"{path}: no audit log yet (it is written by `toolkiln serve`)")
    records = read_audit(path, tool=tool, tail=tail)
    if as_json:
        for record in records:
            click.echo(json.dumps(record, ensure_ascii=False))
        return
    rows: list[tuple[str, ...]] = [("TIME", "TRANSPORT", "CLIENT", "TOOL", "MS", "OK", "DETAIL")]
    for record in records:
        detail = record.get("error") or json.dumps(record.get("arguments", {}), ensure_ascii=False)
        rows.append(
            (
                str(record.get("timestamp", "")),
                str(record.get("transport", "")),
                str(record.get("client") or "-"),
                str(record.get("tool") or record.get("path") or "-"),
                str(record.get("duration_ms", "-")),
                "yes" if record.get("success") else "no",
                first_line(str(detail))[:80],
            )
        )
    click.echo(render_table(rows))
