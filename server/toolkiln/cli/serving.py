"""`toolkiln serve [DIR]`: the compiled tools over stdio or HTTP, optionally rebuilt on every change.

This is where stages are composed: `--discover` (and DIR) runs discover and build
before serving (`rebuilding.py`), and `--watch` hands the server a rebuild callback
that runs them again. Its options are in `serve_options.py`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import importlib
import logging
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolkiln.cli.app import Folders, RunOptions, cli, folder_options, run_options
from toolkiln.cli.auditing import AUDIT_FILE
from toolkiln.cli.banner import http_banner, oauth_banner, stdio_banner
from toolkiln.cli.fallback_flag import FALLBACK_HELP, opt_in_unread
from toolkiln.cli.folder_argument import folder_argument, served_folder
from toolkiln.cli.rebuilding import build_folders, built_from, rebuild_folders
from toolkiln.cli.serve_options import HttpOptions, choose_transport, http_options
from toolkiln.cli.state_option import chosen_state, state_option
from toolkiln.cli.telemetry_options import TelemetryOptions, start_chosen_telemetry, telemetry_options
from toolkiln.errors import ConfigError
from toolkiln.files import SERVER_CONFIG_FILE, catalog_path

if TYPE_CHECKING:
    from toolkiln.audit import AuditLog
    from toolkiln.runner import Registry
    from toolkiln.serve.early import EarlyAnswers
    from toolkiln.serve.service import ToolService
    from toolkiln.telemetry.setup import Telemetry

logger = logging.getLogger("toolkiln")


@cli.command()
@folder_options
@folder_argument
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
@click.option("--fallback", is_flag=True, help=FALLBACK_HELP)
@click.option(
    "--catalog-search",
    type=click.Choice(["auto", "on", "off"]),
    help="List a search tool and a call tool instead of every tool: auto (above --search-above "
    "tools), on, off [default: config/server.json `catalog.search`, else auto].",
)
@click.option(
    "--search-above",
    type=click.IntRange(min=0),
    metavar="N",
    help="With auto: search mode past N tools [default: config/server.json `catalog.search_above`, else 40].",
)
@state_option
@telemetry_options
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
    fallback: bool,
    catalog_search: str | None,
    search_above: int | None,
    state_url: str | None,
    telemetry: TelemetryOptions,
) -> None:
    """Serve the compiled tools to MCP clients, over stdio (what clients spawn) or HTTP.

    \b
    DIR, when given, is discovered and built first, then served (one command:
    `uvx toolkiln serve ~/scripts`):
    - a toolkiln project (DIR holds tools/ and config/): its own folders;
    - any other folder: all its scripts, and nothing is written into it. Their configs
      go to ~/.config/toolkiln/folders/<name>-<hash>/ (under $XDG_CONFIG_HOME; private,
      one per folder), or to --config-dir. The log says where: edit a tool's config there
      to disable or tune it; `toolkiln list DIR` shows what is served.

    Loads only config/tools.json; no script is read or run until a client calls it.
    With --discover (or --watch), the pipeline runs first; a broken tool or a failed
    build is logged and the last good tools.json is served. With --watch, every change
    under the tools, prompts, resources and config folders is rediscovered, rebuilt and
    swapped in. Every tool call, and over HTTP every denied request, is audited.

    Over HTTP, a browser at / gets the dashboard (behind the same token): the tools
    with switches that enable or disable them live, a form to try each one, the
    latest audit entries and health.
    """
    transport = choose_transport(stdio, http_flag, transport)
    _hide_server_secrets(http)
    served = served_folder()
    if fallback:
        opt_in_unread(folders)
        discover_first = True
    if served is not None:
        discover_first = True
        if served.owned:
            logger.info(
                "serving the folder %s; its tools' configs are in %s (edit one to tune a tool; "
                "`toolkiln disable NAME %s` stops serving one; `toolkiln where` shows every path)",
                served.root,
                folders.config / "tools",
                served.root,
            )
    built = (
        build_folders(folders, discover=True, force=force_discover)
        if discover_first or force_discover or watch
        else True
    )
    if not built and not catalog_path(folders.config).exists():
        raise ConfigError(f"{catalog_path(folders.config)}: the first build failed; see the errors above")

    search = SearchChoice(catalog_search, search_above)
    with _gc_paused():
        from toolkiln.audit import AuditLog
        from toolkiln.runner import Registry
        from toolkiln.serve.early import EarlyAnswers

        registry = Registry.load(catalog_path(folders.config))
        audit = None if no_audit else AuditLog(audit_log or folders.config / AUDIT_FILE, audit_max_bytes)
        # The OpenTelemetry SDK, when config/server.json or an option turns it on: its
        # modules are frozen with the rest too.
        observed = start_chosen_telemetry(telemetry.applied_to(registry.catalog.telemetry), audit)
        # Over stdio the handshake is answered from the catalog while the SDK loads; not
        # under --watch, where a client that has its first list expects every change made
        # after it to reach it, and the watcher starts only with the SDK's session; nor
        # where the SDK's handlers answer otherwise (search mode's two tools, traced requests).
        answers_early = transport == "stdio" and not watch and observed is None
        early = EarlyAnswers.start(registry) if answers_early and search.lists_all(registry) else None

        # The mcp SDK (most of the start) and the transport's own modules, and only its:
        # stdio never loads the HTTP stack, the dashboard or the relay (a test checks it).
        importlib.import_module(f"toolkiln.serve.{transport}")  # stdio.py or http.py
    rebuild = functools.partial(rebuild_folders, folders, discover=True) if watch else None
    try:
        _serve_on(
            transport,
            folders,
            registry,
            run,
            http,
            max_concurrency,
            audit,
            rebuild,
            state_url,
            search,
            observed,
            early,
        )
    finally:
        if observed is not None:
            observed.shutdown()


def _serve_on(
    transport: str,
    folders: Folders,
    registry: Registry,
    run: RunOptions,
    http: HttpOptions,
    max_concurrency: int | None,
    audit: AuditLog | None,
    rebuild: Callable[[], Registry | None] | None,
    state_url: str | None,
    search: SearchChoice,
    telemetry: Telemetry | None,
    early: EarlyAnswers | None,
) -> None:
    import anyio

    if transport == "stdio":
        stdio = functools.partial(_serve_stdio, folders, registry, run, max_concurrency, audit, rebuild)
        anyio.run(stdio, state_url, search, telemetry, early)
    else:
        # The dashboard's switches rebuild the folders the served tools.json was built from;
        # without --watch, only build: no script is read unless serve was asked to.
        switches = rebuild or functools.partial(
            rebuild_folders, built_from(folders, registry), discover=False
        )
        anyio.run(
            _serve_http,
            *(folders, registry, run, http, max_concurrency, audit, rebuild, switches, state_url, search),
            telemetry,
        )


@dataclasses.dataclass(frozen=True)
class SearchChoice:
    """`--catalog-search` and `--search-above`, over config/server.json `catalog`."""

    mode: str | None
    above: int | None

    def lists_all(self, registry: Registry) -> bool:
        """Whether every client gets every tool from `tools/list` (search mode cannot be on)."""
        settings = registry.catalog.catalog_search
        mode = self.mode or settings.search
        above = self.above if self.above is not None else settings.search_above
        return mode == "off" or (mode == "auto" and len(registry.tools) <= above)

    def apply(self, service: ToolService) -> None:
        """Give `service` its search mode; a clear error now where it would be on but cannot be."""
        from toolkiln.serve.catalog_search import CatalogSearch

        service.catalog_search = CatalogSearch(self.mode, self.above)  # type: ignore[arg-type]
        service.catalog_search.check_start(service.registry)


def _hide_server_secrets(http: HttpOptions) -> None:
    """Before any script runs (a probe of `serve DIR` too): a --token-file's folder (the
    task store lives beside it) and the replicas' secret file are never seen by one."""
    import os

    from toolkiln.process import hide_from_every_process
    from toolkiln.state_secret import SECRET_ENV_VAR

    secret_file = os.environ.get(SECRET_ENV_VAR)
    hide_from_every_process(
        *([http.token_file.parent] if http.token_file else []), *filter(None, [secret_file])
    )


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
    state_url: str | None,
    search: SearchChoice,
    telemetry: Telemetry | None,
    early: EarlyAnswers | None,
) -> None:
    from toolkiln.runner import ToolRunner
    from toolkiln.serve.service import ToolService
    from toolkiln.serve.stdio import serve_stdio
    from toolkiln.token import default_state_dir

    if audit is not None:  # an HTTP server's token, which a tool may print, is never written
        for token in _http_tokens():
            audit.redactor.add_known(token)
    state = chosen_state(registry.catalog.state, state_url, default_state_dir())
    service = ToolService(
        ToolRunner(registry, run.settings(registry, "stdio", max_concurrency)),
        audit,
        state=state,
        telemetry=telemetry,
    )
    search.apply(service)
    served = served_folder()
    # The client snippet names DIR when DIR alone says what is served (no --config-dir given).
    folder = served.root if served and (served.owned or served.config == served.root / "config") else None
    banner = stdio_banner(len(registry.tools), registry.tools_dir, folders.config, folder=folder)
    # Printed once SIGTERM stops it cleanly: a supervisor that reads it may stop it at once.
    ready = functools.partial(click.echo, banner, err=True)
    await _with_watcher(service, folders, rebuild, serve_stdio(service, ready, early))


async def _serve_http(
    folders: Folders,
    registry: Registry,
    run: RunOptions,
    http: HttpOptions,
    max_concurrency: int | None,
    audit: AuditLog | None,
    rebuild: Callable[[], Registry | None] | None,
    switches: Callable[[], Registry | None],
    state_url: str | None,
    search: SearchChoice,
    telemetry: Telemetry | None = None,
) -> None:
    from toolkiln.runner import ToolRunner
    from toolkiln.serve.forwarded import TrustedProxies
    from toolkiln.serve.guard import Admission, is_loopback
    from toolkiln.serve.http import HttpSettings, serve_http
    from toolkiln.serve.listener import bind
    from toolkiln.serve.service import ToolService
    from toolkiln.token import (
        SERVER_FILE,
        TOKEN_FILE,
        Tokens,
        default_state_dir,
        read_or_create_token,
        read_tokens,
    )

    if (http.tls_cert is None) != (http.tls_key is None):
        raise ConfigError("--tls-cert and --tls-key go together")
    proxies = tuple(
        filter(None, (address.strip() for value in http.forwarded_allow_ips for address in value.split(",")))
    )
    TrustedProxies(proxies)  # each an address or a network: a clear error now, not at start
    if not is_loopback(http.host):
        if http.no_auth:
            raise ConfigError(
                f"--no-auth is refused on {http.host}: only a loopback address may skip the token"
            )
        logger.warning("listening on %s, beyond this machine: every request needs the token", http.host)
    state_dir = http.token_file.parent if http.token_file else default_state_dir()
    token_file = None if http.no_auth else (http.token_file or state_dir / TOKEN_FILE)
    token = read_or_create_token(token_file)[0] if token_file else None
    tokens = Tokens(read_tokens(token_file)) if token_file else None  # every line; read again on change
    if audit is not None:  # never written, wherever it appears: an argument, a tool's output
        for secret in (*(tokens.all if tokens else ()), *_http_tokens()):
            audit.redactor.add_known(secret or "")
    if telemetry is not None and telemetry.redactor is not None:  # nor recorded in a span
        telemetry.redactor.add_known(token or "")
    listener = bind(http.host, http.port)
    port = listener.getsockname()[1]
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
        max_sessions=http.max_sessions,
        max_event_memory=http.max_event_memory,
        forwarded_allow_ips=proxies,
        drain_seconds=http.drain_seconds,
    )
    server_vars = {"host": http.host, "port": port, "https": http.tls_cert is not None}
    service = ToolService(
        ToolRunner(
            registry,
            # A confined tool never sees the token's folder, wherever --token-file puts it
            # (`_hide_server_secrets` also hides it from probes).
            dataclasses.replace(
                run.settings(registry, "http", max_concurrency, **server_vars), hidden=(str(state_dir),)
            ),
        ),
        audit,
        state_dir=state_dir,  # the task store lives beside the token
        state=chosen_state(registry.catalog.state, state_url, state_dir, token),
        telemetry=telemetry,
    )
    search.apply(service)
    admission = Admission.for_bind(
        http.host, token, extra_hosts=http.allow_host, extra_origins=http.allow_origin, tokens=tokens
    )
    if registry.catalog.oauth is not None:  # /mcp and /rpc take the issuer's access tokens
        from toolkiln.serve.auth.setup import gate_for

        gate = gate_for(registry.catalog.oauth, lambda: service.registry, http.max_body)
        admission = dataclasses.replace(admission, oauth=gate)

    def on_ready(base_url: str) -> None:
        banner = http_banner(len(registry.tools), base_url, token_file, http.stateless, settings.dashboard)
        if registry.catalog.oauth is not None:
            banner = oauth_banner(banner, registry.catalog.oauth.issuer, registry.catalog.oauth.resource)
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

    from toolkiln.cli.announcing import watch_announcer
    from toolkiln.serve.watch import watch_and_reload

    async with anyio.create_task_group() as group:
        await group.start(service.run_background)  # parked interactive calls, and tasks
        if rebuild is not None:
            watched = [folders.tools, folders.prompts, folders.resources]
            watched += [folders.config / kind for kind in ("tools", "prompts", "resources")]
            # config/server.json too: turning run_command off there must not wait for a restart.
            server_json = folders.config / SERVER_CONFIG_FILE
            announce = watch_announcer(service)  # with a state URL, the other replicas load it too
            watching = functools.partial(watch_and_reload, files=[server_json], on_reload=announce)
            group.start_soon(watching, service, watched, rebuild)
        await serving
        group.cancel_scope.cancel()


def _http_tokens() -> tuple[str, ...]:
    """The tokens in the default token file, if there is one (made by `serve --http`)."""
    from toolkiln.token import TOKEN_FILE, default_state_dir, read_tokens

    try:
        return read_tokens(default_state_dir() / TOKEN_FILE)
    except (ConfigError, UnicodeDecodeError):
        return ()
