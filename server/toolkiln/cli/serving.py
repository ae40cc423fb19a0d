"""`toolkiln serve`: the compiled tools over stdio or HTTP, optionally rebuilt on every change.

This is where stages are composed: `--discover` runs discover and build before
serving, and `--watch` hands the server a rebuild callback that runs them again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import logging
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from toolkiln.cli.app import Folders, RunOptions, cli, folder_options, run_options
from toolkiln.cli.auditing import AUDIT_FILE
from toolkiln.cli.banner import http_banner, stdio_banner
from toolkiln.errors import ConfigError, ToolkilnError
from toolkiln.files import SERVER_CONFIG_FILE, catalog_path

if TYPE_CHECKING:
    from toolkiln.audit import AuditLog
    from toolkiln.runner import Registry
    from toolkiln.serve import ToolService

logger = logging.getLogger("toolkiln")


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
    no_dashboard: bool
    read_timeout: float
    max_connections: int | None
    forwarded_allow_ips: tuple[str, ...]


def http_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """The options of `serve --http`, handed to the command as `http`."""

    @functools.wraps(function)
    def command(*args: Any, **kwargs: Any) -> Any:
        http = HttpOptions(**{field.name: kwargs.pop(field.name) for field in fields(HttpOptions)})
        return function(*args, http=http, **kwargs)

    existing_file = click.Path(exists=True, dir_okay=False, path_type=Path)
    options = [
        click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (HTTP)."),
        click.option(
            "-p",
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
            "--token-file",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Bearer token file [default: ~/.config/toolkiln/token].",
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
        click.option("--tls-cert", type=existing_file, help="Serve HTTPS with this certificate (PEM)."),
        click.option("--tls-key", type=existing_file, help="The certificate's private key (PEM)."),
        click.option(
            "--max-body",
            type=click.IntRange(min=1024),
            default=4 * 1024 * 1024,
            show_default=True,
            help="Largest request body in bytes; bigger ones get 413.",
        ),
        click.option(
            "--no-dashboard", is_flag=True, help="No web dashboard at / (only /mcp, /rpc and /health)."
        ),
        click.option(
            "--read-timeout",
            type=click.FloatRange(min=0.1),
            default=10.0,
            show_default=True,
            metavar="SECONDS",
            help="Time a connection has to send a request's headers, then its body; slower ones are closed.",
        ),
        click.option(
            "--max-connections",
            type=click.IntRange(min=1),
            help="Open connections at most [default: what the open-file limit leaves, up to 4096].",
        ),
        click.option(
            "--forwarded-allow-ips",
            multiple=True,
            metavar="ADDRESSES",
            help="Believe X-Forwarded-For/-Proto only from these proxies (comma-separated; "
            "repeatable) [default: from none].",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@cli.command()
@folder_options
@run_options
@click.option("--stdio", is_flag=True, help="Serve over stdin/stdout [default].")
@click.option(
    "--http",
    "http_flag",
    is_flag=True,
    help="Serve Streamable HTTP at /mcp, plus /rpc, /health and the dashboard at /.",
)
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http", "streamable-http"]),
    help="The same choice in FastMCP's spelling: stdio, or http (streamable-http).",
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
@click.option(
    "--audit-max-bytes",
    type=click.IntRange(min=1024),
    default=10 * 1024 * 1024,
    help="Rotate the audit log at this size; five old files are kept [default: 10 MiB].",
)
@click.option("--no-audit", is_flag=True, help="Keep no audit log.")
@click.option(
    "--discover", "discover_first", is_flag=True, help="Run an incremental discover and build first."
)
@click.option(
    "--force-discover", is_flag=True, help="Run a full discover (every script re-read) and build first."
)
@click.option("--watch", is_flag=True, help="Rediscover and rebuild on every change; clients are told.")
def serve(
    folders: Folders,
    run: RunOptions,
    stdio: bool,
    http_flag: bool,
    transport: str | None,
    http: HttpOptions,
    max_concurrency: int | None,
    audit_log: Path | None,
    audit_max_bytes: int,
    no_audit: bool,
    discover_first: bool,
    force_discover: bool,
    watch: bool,
) -> None:
    """Serve the compiled tools to MCP clients, over stdio (what clients spawn) or HTTP.

    Loads only config/tools.json; no script is read or run until a client calls it.
    With --discover (or --watch), the pipeline runs first; a broken tool or a failed
    build is logged and the last good tools.json is served. With --watch, every change
    under the tools, prompts, resources and config folders is rediscovered, rebuilt and
    swapped in. Every tool call, and over HTTP every denied request, is audited.

    Over HTTP, a browser at / gets the dashboard (behind the same token): the tools
    with switches that enable or disable them live, a form to try each one, the
    latest audit entries and health.
    """
    transport = _transport(stdio, http_flag, transport)
    built = (
        _build(folders, discover=True, force=force_discover)
        if discover_first or force_discover or watch
        else True
    )
    if not built and not catalog_path(folders.config).exists():
        raise ConfigError(f"{catalog_path(folders.config)}: the first build failed; see the errors above")

    with _gc_paused():
        import anyio

        import toolkiln.serve  # noqa: F401  (the mcp SDK: most of the start)
        from toolkiln.audit import AuditLog
        from toolkiln.runner import Registry

        registry = Registry.load(catalog_path(folders.config))
    audit = None if no_audit else AuditLog(audit_log or folders.config / AUDIT_FILE, audit_max_bytes)
    rebuild = functools.partial(_rebuild, folders, discover=True) if watch else None
    if transport == "stdio":
        anyio.run(_serve_stdio, folders, registry, run, max_concurrency, audit, rebuild)
    else:
        # The dashboard's switches rebuild the folders the served tools.json was built from;
        # without --watch, only build: no script is read unless serve was asked to.
        switches = rebuild or functools.partial(_rebuild, _built_from(folders, registry), discover=False)
        anyio.run(_serve_http, folders, registry, run, http, max_concurrency, audit, rebuild, switches)


def _transport(stdio: bool, http: bool, transport: str | None) -> str:
    """stdio or http, from `--stdio`, `--http` or `--transport`; two that disagree are an error."""
    chosen = {"stdio"} if stdio else set()
    chosen |= {"http"} if http else set()
    chosen |= {"http" if transport == "streamable-http" else transport} if transport else set()
    if len(chosen) > 1:
        raise click.UsageError("choose one transport: --stdio, --http (or --transport stdio|http)")
    return chosen.pop() if chosen else "stdio"


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Import the SDK and load the catalog with the cyclic GC paused, then freeze what was
    made: those objects live as long as the server, and collections that traverse them
    again and again while they are made cost ~150 ms of a start (~20% of it)."""
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


async def _serve_stdio(
    folders: Folders,
    registry: Registry,
    run: RunOptions,
    max_concurrency: int | None,
    audit: AuditLog | None,
    rebuild: Callable[[], Registry | None] | None,
) -> None:
    from toolkiln.runner import ToolRunner
    from toolkiln.serve import ToolService, serve_stdio

    if audit is not None:  # an HTTP server's token, which a tool may print, is never written
        audit.redactor.add_known(_http_token() or "")
    service = ToolService(ToolRunner(registry, run.settings(registry, "stdio", max_concurrency)), audit)
    click.echo(stdio_banner(len(registry.tools), registry.tools_dir, folders.config), err=True)
    await _with_watcher(service, folders, rebuild, serve_stdio(service))


async def _serve_http(
    folders: Folders,
    registry: Registry,
    run: RunOptions,
    http: HttpOptions,
    max_concurrency: int | None,
    audit: AuditLog | None,
    rebuild: Callable[[], Registry | None] | None,
    switches: Callable[[], Registry | None],
) -> None:
    from toolkiln.runner import ToolRunner
    from toolkiln.serve import Admission, HttpSettings, ToolService, bind, is_loopback, serve_http
    from toolkiln.token import SERVER_FILE, TOKEN_FILE, default_state_dir, read_or_create_token

    if (http.tls_cert is None) != (http.tls_key is None):
        raise ConfigError("--tls-cert and --tls-key go together")
    if not is_loopback(http.host):
        if http.no_auth:
            raise ConfigError(
                f"--no-auth is refused on {http.host}: only a loopback address may skip the token"
            )
        logger.warning("listening on %s, beyond this machine: every request needs the token", http.host)
    state_dir = http.token_file.parent if http.token_file else default_state_dir()
    token_file = None if http.no_auth else (http.token_file or state_dir / TOKEN_FILE)
    token = read_or_create_token(token_file)[0] if token_file else None
    if audit is not None:  # never written, wherever it appears: an argument, a tool's output
        for secret in (token, _http_token()):
            audit.redactor.add_known(secret or "")
    listener = bind(http.host, http.port)
    port = listener.getsockname()[1]
    proxies = (address.strip() for value in http.forwarded_allow_ips for address in value.split(","))
    settings = HttpSettings(
        host=http.host,
        port=port,
        stateless=http.stateless,
        tls_cert=http.tls_cert,
        tls_key=http.tls_key,
        max_body_bytes=http.max_body,
        server_file=state_dir / SERVER_FILE,
        token_file=token_file,
        dashboard=not http.no_dashboard,
        read_timeout=http.read_timeout,
        max_connections=http.max_connections,
        forwarded_allow_ips=tuple(filter(None, proxies)),
    )
    server_vars = {"host": http.host, "port": port, "https": http.tls_cert is not None}
    service = ToolService(
        ToolRunner(
            registry,
            # A confined tool never sees the token's folder, wherever --token-file puts it.
            dataclasses.replace(
                run.settings(registry, "http", max_concurrency, **server_vars), hidden=(str(state_dir),)
            ),
        ),
        audit,
        state_dir=state_dir,  # the task store lives beside the token
    )
    admission = Admission.for_bind(
        http.host, token, extra_hosts=http.allow_host, extra_origins=http.allow_origin
    )

    def on_ready(base_url: str) -> None:
        banner = http_banner(len(registry.tools), base_url, token_file, http.stateless, settings.dashboard)
        click.echo(banner, err=True)

    await _with_watcher(
        service, folders, rebuild, serve_http(service, admission, settings, listener, on_ready, switches)
    )


async def _with_watcher(
    service: ToolService,
    folders: Folders,
    rebuild: Callable[[], Registry | None] | None,
    serving: Awaitable[None],
) -> None:
    """Serve; with a rebuild callback, watch the project's folders meanwhile."""
    import anyio

    from toolkiln.serve import watch_and_reload

    async with anyio.create_task_group() as group:
        await group.start(service.run_background)  # parked interactive calls, and tasks
        if rebuild is not None:
            watched = [folders.tools, folders.prompts, folders.resources]
            watched += [folders.config / kind for kind in ("tools", "prompts", "resources")]
            # config/server.json too: turning run_command off there must not wait for a restart.
            server_json = folders.config / SERVER_CONFIG_FILE
            group.start_soon(
                functools.partial(watch_and_reload, files=[server_json]), service, watched, rebuild
            )
        await serving
        group.cancel_scope.cancel()


def _build(folders: Folders, *, discover: bool, force: bool = False) -> bool:
    """Build (after a discover, when asked); whether it built. What failed is logged,
    and the last good tools.json stays in place."""
    from toolkiln.build import build_catalog
    from toolkiln.discover import discover_tools

    prompts, resources = folders.existing(folders.prompts), folders.existing(folders.resources)
    try:
        if discover:
            report = discover_tools(
                folders.tools, folders.config, force=force, prompts_dir=prompts, resources_dir=resources
            )
            for problem in report.errors:
                logger.error("discover: %s", problem)
        for refusal in build_catalog(folders.config, folders.tools, prompts, resources).errors:
            logger.error("build: %s", refusal)
    except ToolkilnError as error:
        logger.error("%s\nstill serving the last good %s", error, catalog_path(folders.config))
        return False
    return True


def _built_from(folders: Folders, registry: Registry) -> Folders:
    """The folders `registry` was built from (its tools.json says), so that a rebuild by a
    server started elsewhere, or without --tools-dir, does not read another project."""
    return replace(
        folders,
        tools=registry.tools_dir,
        prompts=registry.prompts_dir or folders.prompts,
        resources=registry.resources_dir or folders.resources,
    )


def _rebuild(folders: Folders, *, discover: bool) -> Registry | None:
    """What `--watch` runs on a change (`discover`), or a dashboard switch without it: the
    registry to serve now, or None to keep the current one."""
    from toolkiln.runner import Registry

    if not _build(folders, discover=discover):
        return None
    try:
        return Registry.load(catalog_path(folders.config))
    except ToolkilnError as error:
        logger.error("%s", error)
        return None


def _http_token() -> str | None:
    """The token in the default token file, if there is one (made by `serve --http`)."""
    from toolkiln.token import TOKEN_FILE, default_state_dir

    try:
        return (default_state_dir() / TOKEN_FILE).read_text(encoding="utf-8").strip() or None
    except (OSError, UnicodeDecodeError):
        return None
