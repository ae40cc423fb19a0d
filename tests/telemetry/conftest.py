"""A served project whose tools succeed, fail, time out, hang, run as a task and print
their trace context; and its server started with traces and metrics sent to a receiver."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import MakeTool, tune_tool
from tests.serve.http_server import RunningServer, http_server
from tests.telemetry.otlp_receiver import Received, otlp_receiver
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

TOOLS = {
    "echo.sh": """
        #!/bin/bash
        # Tool: echo
        # Description: Says the word back
        # @param word: The word (type: string, required: true)
        printf '%s' "$word"
        """,
    "fail.sh": """
        #!/bin/sh
        # Tool: fail
        # Description: Always fails
        echo "no luck" >&2
        exit 2
        """,
    "slow.sh": """
        #!/bin/sh
        # Tool: slow
        # Description: Outlives its timeout
        sleep 30
        """,
    "hang.sh": """
        #!/bin/sh
        # Tool: hang
        # Description: Says it started, then waits
        touch "$STARTED"
        sleep 30
        """,
    "traced.sh": """
        #!/bin/sh
        # Tool: traced
        # Description: Prints the trace context it was given
        printf '%s' "$TRACEPARENT"
        """,
    "only_task.sh": """
        #!/bin/sh
        # Tool: only_task
        # Description: Runs only as a task
        echo done
        """,
}


@pytest.fixture
def project(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    for name, body in TOOLS.items():
        make_tool(name, body)
    assert not discover_tools(tools_dir, config_dir).errors
    tune_tool(config_dir, "slow", timeout_seconds=1)
    tune_tool(config_dir, "only_task", task="required")
    build_catalog(config_dir, tools_dir)
    return config_dir


@contextmanager
def observed_server(
    project: Path, state: Path, *args: str, **env: str
) -> Iterator[tuple[RunningServer, Received]]:
    """`serve --http` with its spans and metrics sent to a receiver of this test."""
    with otlp_receiver() as (endpoint, received):
        otel = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
            "OTEL_SERVICE_NAME": "toolkiln-test",
            "OTEL_BSP_SCHEDULE_DELAY": "50",
            "OTEL_METRIC_EXPORT_INTERVAL": "200",
        }
        with http_server(project, state, *args, **otel, **env) as server:
            yield server, received
