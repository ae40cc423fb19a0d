"""`serve --tracing/--metrics/--prometheus/--prometheus-port`: config/server.json
`telemetry` turned on (or off) for one run, also by TOOLKILN_TRACING, TOOLKILN_METRICS,
TOOLKILN_PROMETHEUS and TOOLKILN_PROMETHEUS_PORT. Where the spans and metrics go is
OpenTelemetry's own OTEL_* variables' business (docs/operations.md)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from toolkiln.audit import AuditLog
    from toolkiln.model import TelemetrySettings
    from toolkiln.telemetry.setup import Telemetry


@dataclass(frozen=True)
class TelemetryOptions:
    tracing: bool | None
    metrics: bool | None
    prometheus: bool | None
    prometheus_port: int | None

    def applied_to(self, configured: TelemetrySettings) -> TelemetrySettings:
        """The catalog's `telemetry` with what was given on the command line in its place."""
        given = {name: value for name, value in vars(self).items() if value is not None}
        return configured.model_copy(update=given)


def telemetry_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """The options, handed to the command as `telemetry`."""

    @functools.wraps(function)
    def command(*args: Any, **kwargs: Any) -> Any:
        names = ("tracing", "metrics", "prometheus", "prometheus_port")
        telemetry = TelemetryOptions(**{name: kwargs.pop(name) for name in names})
        return function(*args, telemetry=telemetry, **kwargs)

    options = [
        click.option(
            "--tracing/--no-tracing",
            default=None,
            envvar="TOOLKILN_TRACING",
            help="Send spans over OTLP (OTEL_EXPORTER_OTLP_ENDPOINT) [default: config/server.json "
            "telemetry.tracing; needs toolkiln[telemetry]].",
        ),
        click.option(
            "--metrics/--no-metrics",
            default=None,
            envvar="TOOLKILN_METRICS",
            help="Send metrics over OTLP [default: telemetry.metrics].",
        ),
        click.option(
            "--prometheus/--no-prometheus",
            default=None,
            envvar="TOOLKILN_PROMETHEUS",
            help="Metrics at /metrics of the HTTP server, behind its token [default: telemetry.prometheus].",
        ),
        click.option(
            "--prometheus-port",
            type=click.IntRange(1, 65535),
            envvar="TOOLKILN_PROMETHEUS_PORT",
            help="Metrics at http://127.0.0.1:PORT/metrics [default: telemetry.prometheus_port].",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def start_chosen_telemetry(settings: TelemetrySettings, audit: AuditLog | None) -> Telemetry | None:
    """The OpenTelemetry SDK, when config/server.json or the options turn on any of it
    (imported only then); spans record arguments through the audit log's redaction."""
    if not (settings.tracing or settings.any_metrics):
        return None
    from toolkiln.audit.redaction import Redactor
    from toolkiln.telemetry.setup import start_telemetry

    return start_telemetry(settings, audit.redactor if audit is not None else Redactor())
