"""The reference: a minimal MCP server on the same SDK, serving one `echo` tool that runs
the given script per call, its arguments as env vars (stdin reads nothing).

    python benchmarks/reference_server.py SCRIPT            # stdio
    python benchmarks/reference_server.py SCRIPT --port N   # Streamable HTTP at /mcp
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server

SCHEMA = {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}
ECHO = types.Tool(name="echo", description="Print a message back", input_schema=SCHEMA)


def build_server(script: str) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[ECHO])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        env = {**os.environ, **{key: str(value) for key, value in arguments.items()}}
        done = await anyio.run_process([script], stdin=subprocess.DEVNULL, env=env, check=False)
        text = done.stdout.decode(errors="replace").removesuffix("\n")
        content = types.TextContent(type="text", text=text)
        return types.CallToolResult(content=[content], is_error=done.returncode != 0)

    return Server("reference", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main() -> None:
    server = build_server(os.path.abspath(sys.argv[1]))
    if "--port" not in sys.argv:
        anyio.run(serve_stdio, server)
        return
    import uvicorn

    port = int(sys.argv[sys.argv.index("--port") + 1])
    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
