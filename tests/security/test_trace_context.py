"""A client's trace context is untrusted text (docs/security.md, Telemetry): with tracing
on, a script gets only a `TRACEPARENT` of the exact W3C form, never the client's
`tracestate` or baggage (free text: shell in this test), nor the server's own; a
malformed `traceparent` is ignored; and a tool name the catalog does not have never
becomes a metric label (a client cannot grow the series)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import MakeTool
from tests.serve.http_server import mcp_client
from tests.telemetry.conftest import observed_server
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

SHOW_ENV = """
#!/usr/bin/env python3
# Tool: show_env
# Description: Prints the trace variables it was given
import json, os
print(json.dumps({k: v for k, v in os.environ.items() if k in ("TRACEPARENT", "TRACESTATE", "BAGGAGE")}))
"""
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
SHELL = "$(touch /tmp/pwned);`id`"


@pytest.fixture
def project(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("show_env.py", SHOW_ENV)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.mark.anyio
async def test_a_script_gets_only_a_well_formed_traceparent(project: Path, tmp_path: Path) -> None:
    inherited = {"TRACEPARENT": f"00-{'1' * 32}-{'2' * 16}-01", "TRACESTATE": "server=own"}
    with observed_server(project, tmp_path / "state", "--tracing", "--prometheus", **inherited) as (
        server,
        _,
    ):
        async with mcp_client(server, "legacy") as client:
            meta = {
                "traceparent": f"00-{TRACE_ID}-00f067aa0ba902b7-01",
                "tracestate": f"vendor={SHELL.replace(',', '').replace('=', '')}",
                "baggage": f"user={SHELL}",
            }
            joined = json.loads((await client.call_tool("show_env", {}, meta=meta)).content[0].text)  # type: ignore[arg-type,union-attr]
            bad = {"traceparent": f"00-{SHELL}-00f067aa0ba902b7-01", "tracestate": "a=b"}
            alone = json.loads((await client.call_tool("show_env", {}, meta=bad)).content[0].text)  # type: ignore[arg-type,union-attr]
            for index in range(3):  # names a client makes up
                with pytest.raises(MCPError):
                    await client.call_tool(f"made_up_{index}", {})
        metrics = httpx2.get(f"{server.base_url}/metrics", headers=server.auth()).text
    assert set(joined) == {"TRACEPARENT"}  # no TRACESTATE, no BAGGAGE: the client's, nor the server's
    assert re.fullmatch(rf"00-{TRACE_ID}-[0-9a-f]{{16}}-01", joined["TRACEPARENT"])
    assert set(alone) == {"TRACEPARENT"}
    assert re.fullmatch(r"00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}", alone["TRACEPARENT"])
    assert TRACE_ID not in alone["TRACEPARENT"] and inherited["TRACEPARENT"] != alone["TRACEPARENT"]
    assert "made_up" not in metrics
    assert 'gen_ai_tool_name="show_env"' in metrics
