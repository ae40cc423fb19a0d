"""Cold start and `tools/call` latency of `toolkiln serve`, over stdio and HTTP, with the SDK client.

    .venv/bin/python benchmarks/latency.py [--transport stdio|http|both] [--calls N] [--starts N] [--tools N]

Builds a throwaway tools folder holding an `echo` tool (plus filler tools to reach
--tools), then measures, per transport in the same run: process spawn to the first
`tools/list` answer (median of --starts runs, stdio), and --calls sequential
`tools/call` of echo after a warm-up (p50/p90/p99). Prints one JSON object.
Figures only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from toolkiln.build import build_catalog
from toolkiln.discover import discover_tools

ECHO = """#!/bin/bash
if [ "$1" = "--help" ]; then
  echo '{"description": "Print a message back"}'
  echo '{"message": {"description": "What to print", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
printf '%s\\n' "$message"
"""
FILLER = """#!/bin/bash
# Tool: filler
# Description: One of many
# @param text: Some text (type: string, required: true)
echo "$text"
"""


def make_project(root: Path, tool_count: int) -> Path:
    tools, config = root / "tools", root / "config"
    (tools / "echo.sh").parent.mkdir(parents=True)
    (tools / "echo.sh").write_text(ECHO)
    (tools / "echo.sh").chmod(0o755)
    for index in range(tool_count - 1):
        script = tools / f"filler-{index:04d}" / "run.sh"
        script.parent.mkdir()
        script.write_text(FILLER)
        script.chmod(0o755)
    discover_tools(tools, config)
    build_catalog(config, tools)
    return config


def server_params(config: Path) -> StdioServerParameters:
    args = ["-m", "toolkiln", "--log-level", "warning", "serve", "--config-dir", str(config)]
    return StdioServerParameters(command=sys.executable, args=args)


async def cold_start(config: Path, mode: str) -> float:
    started = time.perf_counter()
    async with Client(server_params(config), mode=mode) as client:
        await client.list_tools()
        return time.perf_counter() - started


@asynccontextmanager
async def http_client(config: Path, mode: str) -> AsyncIterator[Client]:
    state = config / "state"
    command = [sys.executable, "-m", "toolkiln", "--log-level", "warning", "serve", "--http", "--port", "0",
               "--config-dir", str(config), "--token-file", str(state / "token")]  # fmt: skip
    server = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    try:
        while not (state / "server.json").exists():
            await anyio.sleep(0.02)
        url = json.loads((state / "server.json").read_text())["url"]
        headers = {"Authorization": f"Bearer {(state / 'token').read_text().strip()}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http), mode=mode) as client,
        ):
            yield client
    finally:
        server.terminate()
        server.wait()


async def call_latencies(config: Path, mode: str, calls: int, transport: str) -> list[float]:
    connect = Client(server_params(config), mode=mode) if transport == "stdio" else http_client(config, mode)
    async with connect as client:
        for _ in range(10):
            await client.call_tool("echo", {"message": "warm-up"})
        latencies = []
        for index in range(calls):
            started = time.perf_counter()
            result = await client.call_tool("echo", {"message": f"hello {index}"})
            latencies.append(time.perf_counter() - started)
            assert not result.is_error
        return latencies


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--tools", type=int, default=10)
    parser.add_argument("--mode", choices=["legacy", "auto"], default="legacy")
    parser.add_argument("--transport", choices=["stdio", "http", "both"], default="both")
    options = parser.parse_args()
    transports = ["stdio", "http"] if options.transport == "both" else [options.transport]
    figures: dict[str, object] = {"tools": options.tools, "mode": options.mode, "calls": options.calls}
    with tempfile.TemporaryDirectory() as folder:
        config = make_project(Path(folder), options.tools)
        starts = [anyio.run(cold_start, config, options.mode) for _ in range(options.starts)]
        figures["stdio_cold_start_ms_median"] = ms(statistics.median(starts))
        for transport in transports:
            latencies = anyio.run(call_latencies, config, options.mode, options.calls, transport)
            for name, fraction in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99)):
                figures[f"{transport}_call_ms_{name}"] = ms(percentile(latencies, fraction))
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
