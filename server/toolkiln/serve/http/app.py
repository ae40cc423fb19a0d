"""Serving over HTTP: Streamable HTTP at `/mcp` (both protocol eras), plain JSON-RPC at
`/rpc`, `GET /health` (liveness), `GET /ready` (readiness.py) and the dashboard at `/`,
behind the `Guard`, on uvicorn.

While it serves, a discovery file (`server.json`: url, pid and start time, version,
token file, tool count; mode 0600) says where to find it; it is removed when the server
stops, and a reader ignores it once that process is gone (liveness.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import uvicorn
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import RequestBodyLimitMiddleware, TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from toolkiln import __version__
from toolkiln.process import kill_all_groups
from toolkiln.serve.catalog.watch import Rebuild
from toolkiln.serve.dashboard.mount import DashboardMount, is_dashboard_path
from toolkiln.serve.handlers import build_server
from toolkiln.serve.http.connections import DEFAULT_READ_TIMEOUT, connection_cap, protocol_with
from toolkiln.serve.http.credentials import Credentials
from toolkiln.serve.http.drain import CUT_SECONDS, DEFAULT_DRAIN_SECONDS, Drain, serve_draining
from toolkiln.serve.http.event_budget import DEFAULT_MAX_SESSIONS, EventBudget
from toolkiln.serve.http.events import RETRY_MILLISECONDS, ResumableSessionManager
from toolkiln.serve.http.forwarded import ForwardedHeaders, TrustedProxies
from toolkiln.serve.http.guard import Admission, Guard
from toolkiln.serve.http.repeats import install_repeat_filter, quiet_accept_errors, remove_repeat_filter
from toolkiln.serve.http.rpc import rpc_endpoint
from toolkiln.serve.http.server_file import release_server_file, write_server_file
from toolkiln.serve.readiness import READY_PATH, ready_endpoint
from toolkiln.serve.service import ToolService

if TYPE_CHECKING:
    from toolkiln.serve.replicas.replication import Replication

logger = logging.getLogger(__name__)

DEFAULT_PORT = 8765
DEFAULT_MAX_BODY = 4 * 1024 * 1024


@dataclass(frozen=True)
class HttpSettings:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    stateless: bool = False
    tls_cert: Path | None = None
    tls_key: Path | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY
    server_file: Path | None = None  # the discovery file
    token_file: Path | None = None
    dashboard: bool = True
    read_timeout: float = DEFAULT_READ_TIMEOUT  # to send a request's headers, then its body
    max_connections: int | None = None  # None: derived from the open-file limit
    max_sessions: int = DEFAULT_MAX_SESSIONS  # stateful MCP sessions open at once
    max_event_memory: int | None = None  # bytes of resumable events, all sessions (None: event_budget.py)
    # Proxies whose X-Forwarded-For/-Proto are believed (uvicorn's syntax; "*": all).
    forwarded_allow_ips: tuple[str, ...] = ()
    # How long calls and tasks in flight may finish after SIGTERM (drain.py).
    drain_seconds: float = DEFAULT_DRAIN_SECONDS

    @property
    def scheme(self) -> str:
        return "https" if self.tls_cert else "http"


async def serve_http(
    service: ToolService,
    admission: Admission,
    settings: HttpSettings,
    listener: socket.socket,
    on_ready: Callable[[str], None],
    rebuild: Rebuild | None = None,
    replication: Replication | None = None,
) -> None:
    """Serve on `listener` (see `bind`) until SIGINT or SIGTERM, then drain (drain.py);
    `on_ready(base_url)` runs once clients can connect, after the discovery file is
    written. `rebuild` is what the dashboard's switches run after writing a tool's config
    (None: they are read-only). `replication`: a replica's, with a state URL
    (replicas/replication.py). The token and secret files are read again when they change or on
    SIGHUP (credentials.py)."""
    base_url = f"{settings.scheme}://{_url_host(settings.host)}:{listener.getsockname()[1]}"
    tasks, parked = service.tasks, service.parked
    # A parked call's answer comes in a new request: only another replica (through Redis)
    # can still take one once the listener is closed, so only then is it worth waiting for.
    forwards = replication is not None and replication.forwards
    drain = Drain(
        settings.drain_seconds,
        lambda: tasks.running,
        tasks.stop_running,
        lambda: parked.waiting if forwards else 0,
        readiness=service.readiness,
    )
    app = build_app(
        service,
        admission,
        settings,
        lambda: _announce(service, settings, base_url, on_ready),
        rebuild,
        replication,
    )
    app = drain.wrap(app, stateless=settings.stateless)
    seals = replication.seals if replication is not None else None
    credentials = Credentials(service, settings.token_file, admission.tokens, seals)
    limits = connection_cap(service.runner.settings.max_concurrency, settings.max_connections)
    limits = replace(limits, read_timeout=settings.read_timeout)
    config = uvicorn.Config(
        app,
        log_config=None,
        access_log=False,
        lifespan="on",
        http=protocol_with(limits),  # uvicorn's h11, with read deadlines and a connection cap
        backlog=limits.accept_batch,
        ws="none",  # MCP needs no websockets: skips importing them (~30 ms of a start)
        ssl_certfile=settings.tls_cert,
        ssl_keyfile=settings.tls_key,
        timeout_graceful_shutdown=CUT_SECONDS,  # what is left after the drain
        # X-Forwarded-For and -Proto: forwarded.py (uvicorn's own would believe more).
        proxy_headers=False,
    )
    logger.debug(
        "at most %d connections; %s s to send a request", limits.max_connections, limits.read_timeout
    )
    quiet_accept_errors(asyncio.get_running_loop())
    repeat = install_repeat_filter()
    try:
        await serve_draining(config, listener, drain, credentials.reload, credentials.watch)
    finally:
        remove_repeat_filter(repeat)


def build_app(
    service: ToolService,
    admission: Admission,
    settings: HttpSettings,
    on_started: Callable[[], Callable[[], None]],
    rebuild: Rebuild | None = None,
    replication: Replication | None = None,
) -> Any:
    """The ASGI app: the Guard, a body size limit, then the routes (the dashboard's too,
    unless `settings.dashboard` is off)."""
    # Resumable streams: a client that lost its connection mid-call reconnects with
    # Last-Event-ID, from its session's own event store (stateful sessions only), or
    # with `state.url` from Redis, on any replica.
    shared = replication.shared_events() if replication is not None else None
    budget = EventBudget(settings.max_event_memory)
    manager = ResumableSessionManager(
        app=build_server(service),
        shared=shared,
        budget=budget,
        max_sessions=settings.max_sessions,
        stateless=settings.stateless,
        # The Guard checks Host and Origin on every route, this one included.
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        max_request_body_size=settings.max_body_bytes,
        retry_interval=RETRY_MILLISECONDS,
    )
    started = time.monotonic()
    config_dir = service.registry.catalog_file.parent.resolve()  # where build wrote tools.json
    # Switches reach the other replicas.
    news = replication.catalog_news(service, config_dir, rebuild) if replication is not None else None

    def status() -> dict[str, Any]:
        return {
            "status": "ok",
            "version": __version__,
            "tools": len(service.registry.tools),
            "uptime_seconds": round(time.monotonic() - started, 3),
            "stateless": settings.stateless,
        }

    async def health(request: Request) -> JSONResponse:
        if admission.token is None or not admission.token_accepted(request.headers.get("authorization")):
            return JSONResponse(status())
        # With the token: what the sessions hold (event_budget.py), for an operator's monitoring.
        held = {"open": manager.open_sessions, "max": settings.max_sessions}
        held |= {
            "event_bytes": budget.used,
            "event_budget": budget.overall,
            "per_session": budget.per_session,
        }
        return JSONResponse({**status(), "sessions": held})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run(), anyio.create_task_group() as group:
            if news is not None:
                await group.start(news.listen)
            stop = on_started()
            try:
                yield
            finally:
                group.cancel_scope.cancel()
                stop()
                if service.audit is not None:  # the denials counted but not yet summarised
                    service.audit.flush_denials()
                for client in (shared, news):
                    if client is not None:
                        await client.close()

    mcp_app: Any = StreamableHTTPASGIApp(manager)
    routes: list[BaseRoute] = [
        # With Redis, a GET with Last-Event-ID resumes a shared stream on any replica.
        Route(
            "/mcp",
            mcp_app if replication is None or shared is None else replication.resuming(mcp_app, shared),
        ),
        Route("/rpc", rpc_endpoint(service), methods=["POST"]),
        Route("/health", health, methods=["GET"]),
        Route(READY_PATH, ready_endpoint(service.readiness), methods=["GET"]),
    ]
    telemetry = service.telemetry
    if telemetry is not None and telemetry.registry is not None and telemetry.settings.prometheus:
        from toolkiln.telemetry.prometheus import metrics_endpoint  # behind the Guard, as /mcp

        routes.append(Route("/metrics", metrics_endpoint(telemetry.registry), methods=["GET"]))
    if settings.dashboard:

        def dashboard_routes() -> list[BaseRoute]:
            from toolkiln.serve.dashboard.revoked import REVOKED_FILE, Revocations
            from toolkiln.serve.dashboard.routes import Dashboard
            from toolkiln.serve.dashboard.sessions import Sessions

            # Logouts are kept beside the token file: replicas that share it share them.
            ended = settings.token_file.parent / REVOKED_FILE if settings.token_file else None
            sessions = Sessions(
                admission.token,
                port=settings.port,
                secure=settings.tls_cert is not None,
                revocations=Revocations(ended),
                tokens=admission.tokens,
            )
            return Dashboard(service, sessions, config_dir, rebuild, status, news=news).routes()

        routes += DashboardMount(dashboard_routes).routes()
    if admission.oauth is not None:  # RFC 9728: where a client learns whose tokens to bring
        routes += _oauth_routes(service)
    app = Starlette(routes=routes, lifespan=lifespan)
    guarded = Guard(
        RequestBodyLimitMiddleware(app, settings.max_body_bytes),
        admission,
        service.audit,
        delegated=is_dashboard_path if settings.dashboard else None,
    )
    if not settings.forwarded_allow_ips:
        return guarded
    # X-Forwarded-For and -Proto only from the proxies the user named, and only their
    # own last hop: else a client would choose the address the audit log records.
    return ForwardedHeaders(guarded, TrustedProxies(settings.forwarded_allow_ips))


def _oauth_routes(service: ToolService) -> list[BaseRoute]:
    from toolkiln.serve.http.auth.setup import metadata_routes, supported_scopes

    settings = service.registry.catalog.oauth
    return list(metadata_routes(settings, supported_scopes(service.registry))) if settings else []


def _announce(
    service: ToolService, settings: HttpSettings, base_url: str, on_ready: Callable[[str], None]
) -> Callable[[], None]:
    """Write the discovery file and tell the user; returns what to do at shutdown."""
    path = settings.server_file
    previous = None
    if path is not None:
        dashboard = {"dashboard_url": f"{base_url}/"} if settings.dashboard else {}
        token_file = str(settings.token_file) if settings.token_file else None
        tools, stateless = len(service.registry.tools), settings.stateless
        previous = write_server_file(
            path, base_url, **dashboard, token_file=token_file, tools=tools, stateless=stateless
        )
    on_ready(base_url)

    def stop() -> None:
        kill_all_groups()  # calls still running past the grace period
        if path is not None:
            release_server_file(path, previous)
        logger.info("stopped serving at %s", base_url)

    return stop


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
