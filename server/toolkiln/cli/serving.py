"""`toolkiln serve [DIR]`: the compiled tools over stdio or HTTP, optionally rebuilt on every change.

This is where stages are composed: `--discover` (and DIR) runs discover and build
before serving (`rebuilding.py`), and `--watch` hands the server a rebuild callback
that runs them again. Its options are in `serve_options.py`.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolkiln.cli.app import Folders, RunOptions, cli, folder_options, run_options
from toolkiln.cli.auditing import AUDIT_FILE
from toolkiln.cli.fallback_flag import FALLBACK_HELP, opt_in_unread
from toolkiln.cli.folder_argument import folder_argument, served_folder
from toolkiln.cli.rebuilding import build_folders, built_from, rebuild_folders
from toolkiln.cli.serve_options import HttpOptions, SearchChoice, choose_transport, http_options
from toolkiln.cli.state_option import state_option
from toolkiln.cli.telemetry_options import TelemetryOptions, start_chosen_telemetry, telemetry_options
from toolkiln.cli.transports import Serving, http_loop_options, serve_http_from, serve_stdio_from
from toolkiln.errors import ConfigError
from toolkiln.files import catalog_path

if TYPE_CHECKING:
    pass

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
        from toolkiln.serve.stdio.early import EarlyAnswers

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
        importlib.import_module(f"toolkiln.serve.{transport}")  # stdio/transport.py or http/app.py
    rebuild = functools.partial(rebuild_folders, folders, discover=True) if watch else None
    serving = Serving(folders, registry, run, max_concurrency, audit, rebuild, state_url, search, observed)
    import anyio

    try:
        if transport == "stdio":
            anyio.run(serve_stdio_from, serving, early)
        else:
            # The dashboard's switches rebuild the folders the served tools.json was built from;
            # without --watch, only build: no script is read unless serve was asked to.
            switches = rebuild or functools.partial(
                rebuild_folders, built_from(folders, registry), discover=False
            )
            anyio.run(serve_http_from, serving, http, switches, backend_options=http_loop_options())
    finally:
        if observed is not None:
            observed.shutdown()


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
