"""Spans of real calls through a real server and the SDK's client, received over
OTLP/HTTP as the real exporter sends them: named and attributed as the semantic
conventions for MCP say, parented by the client's `_meta`, with the process as a child
whose context the script gets as TRACEPARENT."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import anyio
import pytest
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from tests.serve.http_server import mcp_client
from tests.serve.tasks_wire import http_request, wait_for
from tests.telemetry.conftest import observed_server
from tests.telemetry.otlp_receiver import Received, Span

TRACE_ID = 0x4BF92F3577B34DA6A3CE929D0E0E4736
CLIENT_SPAN_ID = 0x00F067AA0BA902B7
ERROR = 2  # the OTLP status code of an error


def _one(received: Received, name: str) -> Span:
    spans: list[Span] = received.wait_for(lambda r: r.spans_named(name))
    assert len(spans) == 1, [s.name for s in received.spans]
    return spans[0]


def _child(received: Received, name: str, parent: Span) -> Span:
    child = _one(received, name)
    assert (child.trace_id, child.parent_span_id) == (parent.trace_id, parent.span_id)
    return child


@pytest.mark.anyio
async def test_calls_are_spans_named_by_the_conventions_with_their_process_as_a_child(
    project: Path, tmp_path: Path
) -> None:
    with observed_server(project, tmp_path / "state", "--tracing") as (server, received):
        async with mcp_client(server, "legacy") as client:
            caller = SpanContext(TRACE_ID, CLIENT_SPAN_ID, is_remote=False, trace_flags=TraceFlags(1))
            with trace.use_span(NonRecordingSpan(caller)):  # the SDK client puts it in `_meta`
                traced = await client.call_tool("traced", {})
            ok = await client.call_tool("echo", {"word": "hi"})
            failed = await client.call_tool("fail", {})
            timed_out = await client.call_tool("slow", {})
        assert not ok.is_error and failed.is_error and timed_out.is_error

        call = _one(received, "tools/call traced")
        assert (call.trace_id, call.parent_span_id) == (f"{TRACE_ID:032x}", f"{CLIENT_SPAN_ID:016x}")
        assert call.kind == 2  # SERVER
        assert call.resource["service.name"] == "toolkiln-test"
        attributes = call.attributes
        assert attributes["mcp.method.name"] == "tools/call"
        assert attributes["gen_ai.tool.name"] == "traced"
        assert attributes["gen_ai.operation.name"] == "execute_tool"
        assert attributes["network.transport"] == "tcp"
        assert attributes["mcp.protocol.version"] == "2025-11-25"
        assert attributes["mcp.session.id"]
        assert attributes["jsonrpc.request.id"]
        assert "error.type" not in attributes
        assert "gen_ai.tool.call.arguments" not in attributes  # never, unless opted in
        process = _child(received, "process traced", call)
        assert process.attributes["process.exit.code"] == 0
        assert process.attributes["toolkiln.process.timed_out"] is False
        assert process.attributes["toolkiln.process.killed"] is False
        assert "toolkiln.process.confined" in process.attributes
        assert process.attributes["toolkiln.process.spawn.duration"] > 0
        # The script joined the trace: its parent is the process span.
        assert traced.content[0].text == f"00-{TRACE_ID:032x}-{process.span_id}-01"  # type: ignore[union-attr]

        failure = _one(received, "tools/call fail")
        assert failure.attributes["error.type"] == "tool_error"
        assert failure.status_code == ERROR
        assert _child(received, "process fail", failure).attributes["process.exit.code"] == 2
        # Without a caller's context, a call starts its own trace.
        assert failure.parent_span_id == ""

        slow = _one(received, "tools/call slow")
        process = _child(received, "process slow", slow)
        assert process.attributes["toolkiln.process.timed_out"] is True
        assert process.attributes["toolkiln.process.killed"] is True
        assert process.attributes["error.type"] == "timeout"
        # Each request has one span: the SDK's own middleware was replaced, not doubled.
        assert len(received.spans_named("tools/call echo")) == 1
        initialize = _one(received, "initialize")
        assert initialize.attributes["mcp.method.name"] == "initialize"


@pytest.mark.anyio
async def test_a_cancelled_call_is_an_error_span_and_its_process_killed(
    project: Path, tmp_path: Path
) -> None:
    started = tmp_path / "started"
    with observed_server(project, tmp_path / "state", "--tracing", STARTED=str(started)) as (
        server,
        received,
    ):
        async with mcp_client(server, "legacy") as client, anyio.create_task_group() as group:
            group.start_soon(functools.partial(client.call_tool, "hang", {}))
            with anyio.fail_after(30):
                while not started.exists():
                    await anyio.sleep(0.05)
            group.cancel_scope.cancel()  # the SDK client sends notifications/cancelled
        call = _one(received, "tools/call hang")
        assert call.attributes["error.type"] == "cancelled"
        process = _child(received, "process hang", call)
        assert process.attributes["toolkiln.process.killed"] is True
        assert process.attributes["error.type"] == "cancelled"


def test_a_task_has_its_process_span_in_the_calls_trace(project: Path, tmp_path: Path) -> None:
    with observed_server(project, tmp_path / "state", "--tracing") as (server, received):
        call = functools.partial(http_request, server.mcp_url, server.token)
        task_id = call("tools/call", {"name": "only_task", "arguments": {}})["taskId"]
        wait_for(call, task_id, "completed")
        request = _one(received, "tools/call only_task")
        assert request.attributes["mcp.protocol.version"] == "2026-07-28"
        assert "mcp.session.id" not in request.attributes  # the stateless era has none
        process = _child(received, "process only_task", request)
        assert process.attributes["process.exit.code"] == 0


def test_arguments_are_recorded_only_when_opted_in_and_then_redacted(project: Path, tmp_path: Path) -> None:
    server_json = project / "server.json"
    server_json.write_text('{"telemetry": {"tracing": true, "record_arguments": true}}')
    os.utime(server_json)
    from toolkiln.build.merge import build_catalog

    build_catalog(project, project.parent / "tools")
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    with observed_server(project, tmp_path / "state") as (server, received):
        # /rpc: not MCP, so no request span; its process span is a trace of its own.
        server.rpc("tools/call", {"name": "echo", "arguments": {"word": "x"}})
        call = functools.partial(http_request, server.mcp_url, server.token)
        call("tools/call", {"name": "echo", "arguments": {"word": secret}})
        span = _one(received, "tools/call echo")
        processes = received.wait_for(
            lambda r: len(r.spans_named("process echo")) == 2 and r.spans_named("process echo")
        )
    assert sorted(p.parent_span_id for p in processes) == sorted(["", span.span_id])
    assert "gen_ai.tool.call.arguments" in span.attributes
    assert secret not in span.attributes["gen_ai.tool.call.arguments"]
    assert secret not in span.attributes["gen_ai.tool.call.result"]


def test_the_http_requests_own_trace_context_is_a_link_not_the_parent(project: Path, tmp_path: Path) -> None:
    gateway = f"00-{'ab' * 16}-{'cd' * 8}-01"  # a proxy's, in the HTTP header
    with observed_server(project, tmp_path / "state", "--tracing") as (server, received):
        http_request(
            server.mcp_url,
            server.token,
            "tools/call",
            {"name": "echo", "arguments": {"word": "hi"}},
            headers={"traceparent": gateway},
        )
        span = _one(received, "tools/call echo")
    assert span.parent_span_id == ""  # `_meta` had none: a trace of its own
    assert span.trace_id != "ab" * 16
    assert span.links == [("ab" * 16, "cd" * 8)]
