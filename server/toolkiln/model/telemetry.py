"""`config/server.json` `telemetry`: traces and metrics of the server (docs/operations.md).

All off by default. Where they go is OpenTelemetry's business and its variables'
(`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`, ...): this
file only says which are on. They need the optional extra `toolkiln[telemetry]`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class TelemetrySettings(BaseModel):
    """Which of the server's traces and metrics are on, and whether a span may carry a
    call's (redacted) arguments and result."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    # Spans of every request and of each tool's process, sent over OTLP.
    tracing: bool = False
    # Metrics sent over OTLP.
    metrics: bool = False
    # Metrics as Prometheus text at /metrics of the HTTP server, behind its token.
    prometheus: bool = False
    # Metrics as Prometheus text on a port of their own (127.0.0.1), for stdio too.
    prometheus_port: int | None = Field(default=None, ge=1, le=65535)
    # Spans carry the call's arguments and result, redacted as the audit log is.
    record_arguments: bool = False

    @property
    def any_metrics(self) -> bool:
        return self.metrics or self.prometheus or self.prometheus_port is not None
