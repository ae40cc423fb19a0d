"""Traces and metrics of the server, with OpenTelemetry (config/server.json `telemetry`).

Off by default, and then nothing here is imported: the OpenTelemetry SDK, its exporters
and `prometheus_client` come with the extra `toolkiln[telemetry]` and are imported by
`setup.start_telemetry` only when a setting turns one on. The modules:

- `setup`: the tracer and meter providers, their OTLP exporters (configured by the
  `OTEL_*` variables as OpenTelemetry defines them) and the Prometheus reader;
- `instruments`: the metrics (`mcp.server.operation.duration` and toolkiln's own);
- `context`: the trace context of a request (`params._meta`, the HTTP headers) and of
  a script (`TRACEPARENT`);
- `watch`: one call's process span and metrics, told by the runner (runner/call_watch.py);
- `prometheus`: `/metrics` as Prometheus text, on the HTTP server or a port of its own.

The MCP side (the spans of requests, named by the semantic conventions for MCP) is
serve/telemetry.py, which replaces the SDK's own middleware so no request has two spans.
"""
