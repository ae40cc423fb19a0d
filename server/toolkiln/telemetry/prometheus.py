"""The metrics as Prometheus text: `/metrics` of the HTTP server (behind its token, like
every route but `/health`), or a port of its own on 127.0.0.1 (`prometheus_port`; for
stdio servers, or a scraper that has no token)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest, start_http_server

from toolkiln.errors import ConfigError

logger = logging.getLogger(__name__)


def metrics_endpoint(registry: CollectorRegistry) -> Callable[[Any], Any]:
    """A Starlette endpoint answering with the registry's metrics."""
    from starlette.responses import Response

    async def metrics(request: Any) -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    return metrics


def serve_metrics_port(registry: CollectorRegistry | None, port: int) -> Callable[[], None]:
    """Serve `registry` at http://127.0.0.1:PORT/metrics in a thread; what stops it."""
    assert registry is not None
    try:
        server, thread = start_http_server(port, addr="127.0.0.1", registry=registry)
    except OSError as error:
        raise ConfigError(
            f"telemetry.prometheus_port (serve --prometheus-port) {port}: cannot listen on 127.0.0.1:{port} "
            f"({error.strerror or error}); choose a free port"
        ) from None
    logger.info("metrics at http://127.0.0.1:%d/metrics", port)

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(timeout=1)

    return stop
