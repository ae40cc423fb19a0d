"""Serving over each transport, once `toolkiln serve` has loaded the catalog and chosen
its settings (serving.py): the service built, its banner, and the watcher beside it."""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import logging
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import click

from toolkiln.cli.app import Folders, RunOptions
from toolkiln.cli.banner import http_banner, oauth_banner, stdio_banner
from toolkiln.cli.folder_argument import served_folder
from toolkiln.cli.serve_options import HttpOptions, SearchChoice
from toolkiln.cli.state_option import chosen_state
from toolkiln.errors import ConfigError
from toolkiln.files import SERVER_CONFIG_FILE

if TYPE_CHECKING:
    from toolkiln.audit import AuditLog
    from toolkiln.runner import Registry
    from toolkiln.serve.assemble import Served
    from toolkiln.serve.stdio.early import EarlyAnswers
    from toolkiln.telemetry.setup import Telemetry

logger = logging.getLogger("toolkiln")


@dataclasses.dataclass(frozen=True)
class Serving:
    """What either transport serves with, chosen before the SDK loads."""

    folders: Folders
    registry: Registry
    run: RunOptions
    max_concurrency: int | None
    audit: AuditLog | None
    rebuild: Callable[[], Registry | None] | None  # --watch's
    state_url: str | None
    search: SearchChoice
    telemetry: Telemetry | None


async def serve_stdio_from(serving: Serving, early: EarlyAnswers | None) -> None:
    """Serve over stdin/stdout; `early` answered the handshake while the SDK loaded."""
    folders, registry, run, audit, telemetry = (
        serving.folders, serving.registry, serving.run, serving.audit, serving.telemetry
    )  # fmt: skip
    from toolkiln.runner import ToolRunner
    from toolkiln.serve.assemble import assemble
    from toolkiln.serve.stdio.transport import serve_stdio
    from toolkiln.state_dir import default_state_dir

    if audit is not None:  # an HTTP server's token, which a tool may print, is never written
        for token in _http_tokens():
            audit.redactor.add_known(token)
    state = chosen_state(registry.catalog.state, serving.state_url, default_state_dir())
    served = assemble(
        ToolRunner(registry, run.settings(registry, "stdio", serving.max_concurrency)),
        audit,
        state=state,
        telemetry=telemetry,
    )
    service = served.service
    serving.search.apply(service)
    given = served_folder()
    # The client snippet names DIR when DIR alone says what is served (no --config-dir given).
    folder = given.root if given and (given.owned or given.config == given.root / "config") else None
    banner = stdio_banner(len(registry.tools), registry.tools_dir, folders.config, folder=folder)
    # Printed once SIGTERM stops it cleanly: a supervisor that reads it may stop it at once.
    ready = functools.partial(click.echo, banner, err=True)
    await _with_watcher(served, folders, serving.rebuild, serve_stdio(service, ready, early))


async def serve_http_from(
    serving: Serving, http: HttpOptions, switches: Callable[[], Registry | None]
) -> None:
    """Serve over Streamable HTTP; `switches` is what the dashboard's switches rebuild with."""
    folders, registry, run, audit, telemetry = (
        serving.folders, serving.registry, serving.run, serving.audit, serving.telemetry
    )  # fmt: skip
    from toolkiln.http_token import TOKEN_FILE, Tokens, read_or_create_token, read_tokens
    from toolkiln.runner import ToolRunner
    from toolkiln.serve.assemble import assemble
    from toolkiln.serve.http.app import HttpSettings, serve_http
    from toolkiln.serve.http.forwarded import TrustedProxies
    from toolkiln.serve.http.guard import Admission, is_loopback
    from toolkiln.serve.http.listener import bind
    from toolkiln.state_dir import SERVER_FILE, default_state_dir

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
    served = assemble(
        ToolRunner(
            registry,
            # A confined tool never sees the token's folder, wherever --token-file puts it
            # (`_hide_server_secrets` also hides it from probes).
            dataclasses.replace(
                run.settings(registry, "http", serving.max_concurrency, **server_vars),
                hidden=(str(state_dir),),
            ),
        ),
        audit,
        state_dir=state_dir,  # the task store lives beside the token
        state=chosen_state(registry.catalog.state, serving.state_url, state_dir, token),
        telemetry=telemetry,
    )
    service = served.service
    serving.search.apply(service)
    admission = Admission.for_bind(
        http.host, token, extra_hosts=http.allow_host, extra_origins=http.allow_origin, tokens=tokens
    )
    if registry.catalog.oauth is not None:  # /mcp and /rpc take the issuer's access tokens
        from toolkiln.serve.http.auth.setup import gate_for

        gate = gate_for(registry.catalog.oauth, lambda: service.registry, http.max_body)
        admission = dataclasses.replace(admission, oauth=gate)

    def on_ready(base_url: str) -> None:
        banner = http_banner(len(registry.tools), base_url, token_file, http.stateless, settings.dashboard)
        if registry.catalog.oauth is not None:
            banner = oauth_banner(banner, registry.catalog.oauth.issuer, registry.catalog.oauth.resource)
        click.echo(banner, err=True)

    await _with_watcher(
        served,
        folders,
        serving.rebuild,
        serve_http(service, admission, settings, listener, on_ready, switches, served.replication),
    )


def http_loop_options() -> dict[str, bool]:
    """anyio's options for the HTTP server's event loop: uvloop when it is installed (a
    plain call over HTTP spends most of the server's own time in the event loop and the
    sockets; docs/benchmarks.md), else asyncio's own. TOOLKILN_LOOP=asyncio chooses it."""
    if os.environ.get("TOOLKILN_LOOP") == "asyncio" or importlib.util.find_spec("uvloop") is None:
        return {}
    return {"use_uvloop": True}


async def _with_watcher(
    served: Served,
    folders: Folders,
    rebuild: Callable[[], Registry | None] | None,
    serving: Awaitable[None],
) -> None:
    """Serve; with a rebuild callback, watch the project's folders meanwhile."""
    import anyio

    from toolkiln.cli.announcing import watch_announcer
    from toolkiln.serve.catalog.watch import watch_and_reload

    service, replication = served.service, served.replication
    async with anyio.create_task_group() as group:
        await group.start(service.run_background)  # parked interactive calls, and tasks
        if replication is not None:  # the answers other replicas relay here
            await group.start(replication.run, service)
        if rebuild is not None:
            watched = [folders.tools, folders.prompts, folders.resources]
            watched += [folders.config / kind for kind in ("tools", "prompts", "resources")]
            # config/server.json too: turning run_command off there must not wait for a restart.
            server_json = folders.config / SERVER_CONFIG_FILE
            # With a state URL, the other replicas load it too.
            announce = watch_announcer(service, replication)
            watching = functools.partial(watch_and_reload, files=[server_json], on_reload=announce)
            group.start_soon(watching, service, watched, rebuild)
        await serving
        group.cancel_scope.cancel()


def _http_tokens() -> tuple[str, ...]:
    """The tokens in the default token file, if there is one (made by `serve --http`)."""
    from toolkiln.http_token import TOKEN_FILE, read_tokens
    from toolkiln.state_dir import default_state_dir

    try:
        return read_tokens(default_state_dir() / TOKEN_FILE)
    except (ConfigError, UnicodeDecodeError):
        return ()
