"""What is measured: the floor, the reference and toolkiln, each started and called the
same way (the SDK's own client, legacy handshake era) over stdio and HTTP."""

from __future__ import annotations

import importlib.util
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from benchmarks.projects import TOOLKILN, measured_env

REFERENCE = Path(__file__).with_name("reference_server.py")
FASTMCP = Path(__file__).with_name("fastmcp_server.py")  # what a user would write instead
# FastMCP is an optional benchmark dependency (the bench extra): measured when installed.
HAS_FASTMCP = importlib.util.find_spec("fastmcp") is not None
MODE = "legacy"  # the 2025-11-25 handshake: what clients speak today


@dataclass(frozen=True)
class Target:
    variant: str  # floor, process, reference, toolkiln or fastmcp
    transport: str = "stdio"  # stdio or http; the floor and the process have none
    tools: int = 10  # tools compiled into the served config (the reference lists them too)
    options: tuple[str, ...] = ()  # more options of `toolkiln serve`

    @property
    def key(self) -> str:
        if self.variant in ("floor", "process"):
            return self.variant
        return f"{self.variant}_{self.transport}_{self.tools}"

    @property
    def label(self) -> str:
        if self.variant == "floor":
            return "floor (bare spawn)"
        if self.variant == "process":
            return "the reference's process run alone (anyio.run_process)"
        return f"{self.variant} {self.transport} ({self.tools:,} tools)"


class Caller(Protocol):
    @property
    def pid(self) -> int | None:
        """The server's process, if there is one."""
        ...

    async def call_tool(self, name: str, arguments: dict[str, str]) -> str: ...

    async def describe_tools(self) -> dict[str, str]:
        """A fresh `tools/list`: each tool's description by name."""
        ...


@dataclass(frozen=True)
class Workspace:
    """The served configs by tool count; every target runs the same echo script."""

    configs: dict[int, Path]

    @property
    def tools_dir(self) -> Path:
        return self.configs[min(self.configs)].parent / "tools"

    @property
    def echo(self) -> Path:
        return self.tools_dir / "echo.sh"


class _ProcessRun:
    """No MCP: the echo script run per call as the reference's handler runs it, so that
    the rest of the reference's call (the SDK's share) is its p50 less this one's."""

    pid = None

    def __init__(self, script: Path) -> None:
        self.script = script

    async def call_tool(self, name: str, arguments: dict[str, str]) -> str:
        env = {**os.environ, **arguments}
        done = await anyio.run_process([self.script], stdin=subprocess.DEVNULL, env=env, check=False)
        return done.stdout.decode().removesuffix("\n")

    async def describe_tools(self) -> dict[str, str]:
        return {"echo": "the script itself"}


class _Floor:
    """No MCP: the echo script spawned from Python per call, its arguments as env vars.
    The exit is awaited on a pidfd, so calls can overlap without a thread hop each."""

    pid = None

    def __init__(self, script: Path) -> None:
        self.script = script

    async def call_tool(self, name: str, arguments: dict[str, str]) -> str:
        env = {**os.environ, **arguments}
        out = subprocess.PIPE
        with subprocess.Popen(
            [self.script], stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env
        ) as process:
            pidfd = os.pidfd_open(process.pid)
            try:
                await anyio.wait_readable(pidfd)
            finally:
                os.close(pidfd)
            stdout, _ = process.communicate()  # a few bytes, already in the pipe
        return stdout.decode().removesuffix("\n")

    async def describe_tools(self) -> dict[str, str]:
        return {"echo": "the script itself"}


class _McpCaller:
    def __init__(self, client: Client, pid: int) -> None:
        self.client = client
        self.pid = pid

    async def call_tool(self, name: str, arguments: dict[str, str]) -> str:
        result = await self.client.call_tool(name, arguments)
        text = "".join(getattr(block, "text", "") for block in result.content)
        if result.is_error:
            raise RuntimeError(f"{name} failed: {text}")
        return text

    async def describe_tools(self) -> dict[str, str]:
        listed = await self.client.list_tools(cache_mode="bypass")
        return {tool.name: tool.description or "" for tool in listed.tools}


@asynccontextmanager
async def open_target(target: Target, workspace: Workspace, **client: Any) -> AsyncIterator[Caller]:
    """Start the target's server (the floor has none) and connect to it; `client` goes
    to the SDK's `Client` (e.g. a `message_handler`)."""
    if target.variant == "floor":
        yield _Floor(workspace.echo)
    elif target.variant == "process":
        yield _ProcessRun(workspace.echo)
    elif target.transport == "stdio":
        command, *args = _server_command(target, workspace)
        params = StdioServerParameters(command=command, args=args, env=measured_env())
        children = _children()
        with open(os.devnull, "w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), mode=MODE, **client) as session:
                (pid,) = _children() - children
                yield _McpCaller(session, pid)
    else:
        async with _http_client(target, workspace, client) as caller:
            yield caller


async def cold_start(target: Target, workspace: Workspace) -> float:
    """Seconds from spawning the server to its first `tools/list` answer."""
    started = time.perf_counter()
    async with open_target(target, workspace) as caller:
        count = len(await caller.describe_tools())
        elapsed = time.perf_counter() - started
    if count != target.tools:
        raise RuntimeError(f"{target.label}: listed {count} tools, expected {target.tools}")
    return elapsed


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@asynccontextmanager
async def _http_client(
    target: Target, workspace: Workspace, client: dict[str, Any]
) -> AsyncIterator[_McpCaller]:
    port = free_port()
    command = [*_server_command(target, workspace), "--port", str(port)]
    server = subprocess.Popen(command, stderr=subprocess.DEVNULL, env=measured_env())
    try:
        await _wait_for_listener(port, server)
        headers = {"Authorization": f"Bearer {_token(workspace).read_text().strip()}"}
        url = f"http://127.0.0.1:{port}/mcp"
        async with httpx2.AsyncClient(headers=headers, timeout=120) as http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode=MODE, **client) as session:
                yield _McpCaller(session, server.pid)
    finally:
        server.terminate()
        server.wait()


def _children() -> set[int]:
    """The pids of this process's children."""
    tasks = Path("/proc/self/task")
    return {int(pid) for task in tasks.iterdir() for pid in (task / "children").read_text().split()}


def _server_command(target: Target, workspace: Workspace) -> list[str]:
    config = workspace.configs[target.tools]
    if target.variant in ("reference", "fastmcp"):
        server = REFERENCE if target.variant == "reference" else FASTMCP
        return [sys.executable, str(server), str(workspace.echo), "--tools", str(config / "tools.json")]
    # Every tool listed, as the reference lists them (search mode would list two above 40).
    command = [TOOLKILN, "serve", "--config-dir", str(config), "--catalog-search", "off", *target.options]
    if target.transport == "http":
        command += ["--http", "--token-file", str(_token(workspace))]
    return command


def _token(workspace: Workspace) -> Path:
    """A token file made before any server starts, so that no start pays for making one."""
    path = workspace.tools_dir.parent / "state" / "token"
    if not path.exists():
        path.parent.mkdir(mode=0o700, exist_ok=True)
        path.write_text(secrets.token_urlsafe(32) + "\n")
        path.chmod(0o600)
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _wait_for_listener(port: int, server: subprocess.Popen[bytes]) -> None:
    """Until the port accepts a connection; the first request then waits for the server."""
    while True:
        try:
            stream = await anyio.connect_tcp("127.0.0.1", port)
        except OSError:
            if server.poll() is not None:
                raise RuntimeError(f"the server exited with {server.returncode}") from None
            await anyio.sleep(0.005)
            continue
        await stream.aclose()
        return
