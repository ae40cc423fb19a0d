"""An OTLP/HTTP receiver for tests: a small HTTP server that decodes the protobuf the
real OpenTelemetry exporters send (opentelemetry-proto), and keeps the spans and the
metrics' data points it was sent."""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue


@dataclass
class Span:
    name: str
    trace_id: str
    span_id: str
    parent_span_id: str
    kind: int
    attributes: dict[str, Any]
    links: list[tuple[str, str]]
    status_code: int
    resource: dict[str, Any]


@dataclass
class Point:
    metric: str
    attributes: dict[str, Any]
    value: float  # a sum's or gauge's value; a histogram's count
    buckets: list[float] = field(default_factory=list)


@dataclass
class Received:
    spans: list[Span] = field(default_factory=list)
    points: list[Point] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def wait_for(self, what: Callable[[Received], Any], seconds: float = 30) -> Any:
        """Poll until `what(self)` is truthy; its value."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self.lock:
                found = what(self)
            if found:
                return found
            time.sleep(0.05)
        raise AssertionError(f"never received what was awaited; spans: {[s.name for s in self.spans]}")

    def spans_named(self, name: str) -> list[Span]:
        return [span for span in self.spans if span.name == name]

    def latest(self, metric: str, **attributes: Any) -> Point | None:
        """The latest data point of `metric` whose attributes include `attributes`."""
        found = [
            point
            for point in self.points
            if point.metric == metric and all(point.attributes.get(k) == v for k, v in attributes.items())
        ]
        return found[-1] if found else None


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    return getattr(value, kind) if kind else None


def _attributes(pairs: list[KeyValue]) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


def _decode_traces(body: bytes, received: Received) -> None:
    request = ExportTraceServiceRequest.FromString(body)
    for resource_spans in request.resource_spans:
        resource = _attributes(list(resource_spans.resource.attributes))
        for scope in resource_spans.scope_spans:
            for span in scope.spans:
                received.spans.append(
                    Span(
                        name=span.name,
                        trace_id=span.trace_id.hex(),
                        span_id=span.span_id.hex(),
                        parent_span_id=span.parent_span_id.hex(),
                        kind=span.kind,
                        attributes=_attributes(list(span.attributes)),
                        links=[(link.trace_id.hex(), link.span_id.hex()) for link in span.links],
                        status_code=span.status.code,
                        resource=resource,
                    )
                )


def _decode_metrics(body: bytes, received: Received) -> None:
    request = ExportMetricsServiceRequest.FromString(body)
    for resource_metrics in request.resource_metrics:
        for scope in resource_metrics.scope_metrics:
            for metric in scope.metrics:
                kind = metric.WhichOneof("data")
                for point in getattr(metric, kind).data_points:
                    attributes = _attributes(list(point.attributes))
                    if kind == "histogram":
                        buckets = list(point.explicit_bounds)
                        received.points.append(Point(metric.name, attributes, point.count, buckets))
                    else:
                        value = point.as_double if point.HasField("as_double") else point.as_int
                        received.points.append(Point(metric.name, attributes, value))


@contextmanager
def otlp_receiver() -> Iterator[tuple[str, Received]]:
    """An endpoint for OTEL_EXPORTER_OTLP_ENDPOINT, and what it receives."""
    received = Received()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            if self.headers.get("content-encoding") == "gzip":
                body = gzip.decompress(body)
            with received.lock:
                if self.path == "/v1/traces":
                    _decode_traces(body, received)
                    answer = ExportTraceServiceResponse().SerializeToString()
                elif self.path == "/v1/metrics":
                    _decode_metrics(body, received)
                    answer = ExportMetricsServiceResponse().SerializeToString()
                else:
                    self.send_error(404)
                    return
            self.send_response(200)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
