"""Over stdio: spans say `network.transport=pipe`, metrics are scraped from a port of
their own; and a server with telemetry off imports none of the OpenTelemetry SDK,
prometheus_client or toolkiln.telemetry (a plain install stays lean)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import child_env
from tests.telemetry.otlp_receiver import otlp_receiver
from tests.telemetry.test_metrics import _free_port

TELEMETRY_MODULES = ("opentelemetry.sdk", "opentelemetry.exporter", "prometheus_client", "toolkiln.telemetry")


@pytest.mark.anyio
async def test_stdio_spans_are_pipes_and_metrics_have_their_own_port(project: Path, tmp_path: Path) -> None:
    port = _free_port()
    with otlp_receiver() as (endpoint, received):
        env = {
            **child_env(),
            "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
            "OTEL_BSP_SCHEDULE_DELAY": "50",
            "TOOLKILN_TRACING": "1",
            "TOOLKILN_PROMETHEUS_PORT": str(port),
        }
        command = ["-m", "toolkiln", "serve", "--stdio", "--config-dir", str(project), "--no-audit"]
        parameters = StdioServerParameters(command=sys.executable, args=command, env=env)
        async with Client(parameters, mode="legacy") as client:
            assert (await client.call_tool("echo", {"word": "hi"})).content[0].text == "hi"  # type: ignore[union-attr]
            scraped = httpx2.get(f"http://127.0.0.1:{port}/metrics").text
        span = received.wait_for(lambda r: r.spans_named("tools/call echo"))[0]
    assert span.attributes["network.transport"] == "pipe"
    assert "mcp.session.id" not in span.attributes  # stdio has no session id
    names = {sample.name for family in text_string_to_metric_families(scraped) for sample in family.samples}
    assert "mcp_server_operation_duration_seconds_count" in names


def test_a_server_with_telemetry_off_imports_none_of_it(project: Path, tmp_path: Path) -> None:
    report = tmp_path / "modules.json"
    folders = ["--config-dir", str(project), "--no-audit"]
    code = f"""
import json, sys
from toolkiln.cli import cli
try:
    cli(["serve", "--stdio", *{folders!r}])
except SystemExit as done:
    assert done.code in (0, None), done.code
with open({str(report)!r}, "w") as file:
    json.dump(sorted(sys.modules), file)
"""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"word": "x"}},
        },
    ]
    server = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=child_env(),
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None
    answers = []
    for message in messages:
        server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()
        if "id" in message:  # its answer before the next: stdin ends only after the call's
            answers.append(json.loads(server.stdout.readline()))
    _, stderr = server.communicate(timeout=60)
    assert server.returncode == 0, stderr
    assert answers[1]["result"]["content"][0]["text"] == "x"
    loaded = json.loads(report.read_text())
    assert [name for name in loaded if name.startswith(TELEMETRY_MODULES)] == []
