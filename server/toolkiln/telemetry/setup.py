"""Start the OpenTelemetry SDK for the server: what config/server.json `telemetry` turns on.

Where spans and metrics go is OpenTelemetry's own configuration, read from its
variables as it defines them: `OTEL_EXPORTER_OTLP_ENDPOINT` (or `..._TRACES_ENDPOINT`,
`..._METRICS_ENDPOINT`), `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`,
`OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER` (and `_ARG`), `OTEL_BSP_*`,
`OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_PROPAGATORS`. The providers are made global, so
the spans the mcp SDK makes of its own requests to a client join the same traces.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolkiln import __version__
from toolkiln.errors import ConfigError
from toolkiln.model import TelemetrySettings

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer
    from prometheus_client import CollectorRegistry

    from toolkiln.audit.redaction import Redactor
    from toolkiln.telemetry.instruments import Instruments
    from toolkiln.telemetry.watch import ToolWatch

logger = logging.getLogger(__name__)
INSTRUMENTATION_NAME = "toolkiln"


@dataclass
class Telemetry:
    """What is on: a tracer, the instruments, a Prometheus registry (None: off)."""

    settings: TelemetrySettings
    tracer: Tracer | None = None
    instruments: Instruments | None = None
    registry: CollectorRegistry | None = None
    # What spans record of arguments and results, when `record_arguments` is on.
    redactor: Redactor | None = None
    stops: list[Callable[[], Any]] = field(default_factory=list)

    def watch(self) -> ToolWatch:
        from toolkiln.telemetry.watch import ToolWatch

        return ToolWatch(self.tracer, self.instruments)

    def shutdown(self) -> None:
        """Flush what is pending and stop the exporters (and the Prometheus port)."""
        for stop in reversed(self.stops):
            try:
                stop()
            except Exception:  # an exporter that cannot reach its collector at exit
                logger.warning("telemetry did not stop cleanly", exc_info=True)
        self.stops.clear()


def start_telemetry(settings: TelemetrySettings, redactor: Redactor | None = None) -> Telemetry | None:
    """The SDK started for what `settings` turns on; None when nothing is."""
    if not (settings.tracing or settings.any_metrics):
        return None
    try:
        from opentelemetry.sdk.resources import Resource
    except ImportError:
        raise ConfigError(
            "config/server.json `telemetry` (or serve --tracing/--metrics/--prometheus) needs the "
            "OpenTelemetry SDK: pip install 'toolkiln[telemetry]' (uv tool install 'toolkiln[telemetry]')"
        ) from None
    telemetry = Telemetry(settings, redactor=redactor if settings.record_arguments else None)
    resource = Resource.create(_resource_attributes())
    if settings.tracing:
        _start_tracing(telemetry, resource)
    if settings.any_metrics:
        _start_metrics(telemetry, resource)
    return telemetry


def _resource_attributes() -> dict[str, Any]:
    attributes: dict[str, Any] = {"service.version": __version__}
    named = os.environ.get("OTEL_SERVICE_NAME") or "service.name=" in os.environ.get(
        "OTEL_RESOURCE_ATTRIBUTES", ""
    )
    if not named:  # OpenTelemetry's own default is "unknown_service"
        attributes["service.name"] = INSTRUMENTATION_NAME
    return attributes


def _start_tracing(telemetry: Telemetry, resource: Any) -> None:
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=resource)  # the sampler of OTEL_TRACES_SAMPLER
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    telemetry.tracer = provider.get_tracer(INSTRUMENTATION_NAME, __version__)
    telemetry.stops.append(provider.shutdown)


def _start_metrics(telemetry: Telemetry, resource: Any) -> None:
    from opentelemetry import metrics
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import MetricReader

    from toolkiln.telemetry.instruments import Instruments

    readers: list[MetricReader] = []
    settings = telemetry.settings
    if settings.metrics:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

        readers.append(PeriodicExportingMetricReader(OTLPMetricExporter()))
    if settings.prometheus or settings.prometheus_port is not None:
        from opentelemetry.exporter.prometheus import PrometheusMetricReader
        from prometheus_client import CollectorRegistry

        telemetry.registry = CollectorRegistry()
        readers.append(PrometheusMetricReader(registry=telemetry.registry))
    provider = MeterProvider(resource=resource, metric_readers=readers)
    metrics.set_meter_provider(provider)
    telemetry.instruments = Instruments(provider.get_meter(INSTRUMENTATION_NAME, __version__))
    telemetry.stops.append(provider.shutdown)
    if settings.prometheus_port is not None:
        from toolkiln.telemetry.prometheus import serve_metrics_port

        telemetry.stops.append(serve_metrics_port(telemetry.registry, settings.prometheus_port))
