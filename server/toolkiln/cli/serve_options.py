"""The options of `toolkiln serve`: the transport, and how `serve --http` listens."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from toolkiln.runner import Registry
    from toolkiln.serve.service import ToolService


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
    max_sessions: int
    max_event_memory: int | None
    forwarded_allow_ips: tuple[str, ...]
    drain_seconds: float


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
            "--max-sessions",
            type=click.IntRange(min=1),
            default=1000,
            show_default=True,
            help="MCP sessions open at once at most; past it a new one gets 503 (idle ones close in 30 min).",
        ),
        click.option(
            "--max-event-memory",
            type=click.IntRange(min=1024 * 1024),
            metavar="BYTES",
            help="Bytes of events all sessions keep for resuming streams, together; each at most 4 MiB "
            "[default: an eighth of the machine's memory, 32 MiB to 512 MiB].",
        ),
        click.option(
            "--forwarded-allow-ips",
            multiple=True,
            metavar="ADDRESSES",
            help="Believe X-Forwarded-For/-Proto only from these proxies (comma-separated; "
            "repeatable) [default: from none].",
        ),
        click.option(
            "--drain-seconds",
            type=click.FloatRange(min=0),
            default=30.0,
            show_default=True,
            envvar="TOOLKILN_DRAIN_SECONDS",
            metavar="SECONDS",
            help="On SIGTERM: stop taking connections, and let calls and tasks running finish for this "
            "long before stopping them (env TOOLKILN_DRAIN_SECONDS).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def choose_transport(stdio: bool, http: bool, transport: str | None) -> str:
    """stdio or http, from `--stdio`, `--http` or `--transport`; two that disagree are an error."""
    chosen = {"stdio"} if stdio else set()
    chosen |= {"http"} if http else set()
    chosen |= {"http" if transport == "streamable-http" else transport} if transport else set()
    if len(chosen) > 1:
        raise click.UsageError("choose one transport: --stdio, --http (or --transport stdio|http)")
    return chosen.pop() if chosen else "stdio"


@dataclass(frozen=True)
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
        from toolkiln.serve.catalog.search import CatalogSearch

        service.catalog_search = CatalogSearch(self.mode, self.above)  # type: ignore[arg-type]
        service.catalog_search.check_start(service.registry)
