"""Metrics of real calls: received over OTLP/HTTP from the real exporter, and scraped
from `/metrics` (behind the token) and from a port of their own, read with
prometheus_client's own text parser."""

from __future__ import annotations

import functools
import socket
from pathlib import Path

import httpx2
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.serve.http_server import mcp_client
from tests.serve.tasks_wire import http_request, wait_for
from tests.telemetry.conftest import observed_server
from tests.telemetry.otlp_receiver import Received
from toolkiln.telemetry.instruments import MCP_DURATION_BUCKETS


def _samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _value(samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    found = [v for (n, ls), v in samples.items() if n == name and set(labels.items()) <= set(ls)]
    assert found, f"no sample {name} {labels}: {sorted({n for n, _ in samples})}"
    return sum(found)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.anyio
async def test_calls_are_counted_over_otlp_and_on_metrics(project: Path, tmp_path: Path) -> None:
    port = _free_port()
    args = ("--metrics", "--prometheus", "--prometheus-port", str(port))
    with observed_server(project, tmp_path / "state", *args) as (server, received):
        async with mcp_client(server, "legacy") as client:
            for word in ("a", "b"):
                await client.call_tool("echo", {"word": word})
            await client.call_tool("fail", {})
            await client.call_tool("slow", {})
        call = functools.partial(http_request, server.mcp_url, server.token)
        wait_for(call, call("tools/call", {"name": "only_task", "arguments": {}})["taskId"], "completed")

        denied = httpx2.get(f"{server.base_url}/metrics")
        assert denied.status_code == 401  # behind the same token as /mcp
        scraped = httpx2.get(f"{server.base_url}/metrics", headers=server.auth())
        assert scraped.status_code == 200
        samples = _samples(scraped.text)
        own_port = _samples(httpx2.get(f"http://127.0.0.1:{port}/metrics").text)

        def counted(r: Received) -> bool:
            point = r.latest("toolkiln.tool.calls", **{"gen_ai.tool.name": "echo"})
            return point is not None and point.value == 2

        received.wait_for(counted)
        duration = received.latest("mcp.server.operation.duration", **{"mcp.method.name": "tools/call"})

    for each in (samples, own_port):
        assert _value(each, "toolkiln_tool_calls_total", gen_ai_tool_name="echo") == 2
        errors = functools.partial(_value, each, "toolkiln_tool_errors_total")
        assert errors(gen_ai_tool_name="fail", error_type="tool_error") == 1
        assert errors(gen_ai_tool_name="slow", error_type="timeout") == 1
        assert _value(each, "toolkiln_tool_timeouts_total", gen_ai_tool_name="slow") == 1
        assert _value(each, "toolkiln_tool_calls_active", gen_ai_tool_name="echo") == 0
        assert _value(each, "toolkiln_tool_queue_wait_seconds_count", gen_ai_tool_name="echo") == 2
        assert _value(each, "toolkiln_process_spawn_duration_seconds_count") >= 5
        assert _value(each, "toolkiln_tasks_total", toolkiln_task_status="working") == 1
        assert _value(each, "toolkiln_tasks_total", toolkiln_task_status="completed") == 1
        count = _value(
            each,
            "mcp_server_operation_duration_seconds_count",
            mcp_method_name="tools/call",
            gen_ai_tool_name="echo",
        )
        assert count == 2
    # The conventions' buckets, and no trace was asked for.
    assert duration is not None and tuple(duration.buckets) == MCP_DURATION_BUCKETS
    assert received.spans == []
    buckets = {
        float(dict(labels)["le"])
        for (name, labels) in samples
        if name == "mcp_server_operation_duration_seconds_bucket" and dict(labels)["le"] != "+Inf"
    }
    assert tuple(sorted(buckets)) == MCP_DURATION_BUCKETS


def test_without_a_setting_there_is_no_metrics_route(project: Path, tmp_path: Path) -> None:
    with observed_server(project, tmp_path / "state") as (server, received):
        assert httpx2.get(f"{server.base_url}/metrics", headers=server.auth()).status_code == 404
        assert server.rpc("tools/call", {"name": "echo", "arguments": {"word": "x"}}).status_code == 200
    assert received.spans == [] and received.points == []
