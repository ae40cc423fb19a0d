"""The reference: a minimal MCP server on the same SDK, serving one `echo` tool that runs
the given script per call, its arguments as env vars (stdin reads nothing).

    python benchmarks/reference_server.py SCRIPT            # stdio
    python benchmarks/reference_server.py SCRIPT --port N   # Streamable HTTP at /mcp
    python benchmarks/reference_server.py SCRIPT --tools FILE

With `--tools`, it lists every tool of a compiled `tools.json` (name, title, description,
input schema and hints, as read), so that its cold start with 1,000 tools can be set
beside toolkiln's; every call still runs SCRIPT.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server

SCHEMA = {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}
ECHO = types.Tool(name="echo", description="Print a message back", input_schema=SCHEMA)


def build_server(script: str, tools: list[types.Tool]) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

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


def listed(catalog: str) -> list[types.Tool]:
    with open(catalog, encoding="utf-8") as file:
        compiled = json.load(file)["tools"]
    return [
        types.Tool(
            name=tool["name"],
            title=tool["title"],
            description=tool["description"],
            input_schema=tool["input_schema"],
            annotations=types.ToolAnnotations(
                title=tool["title"],
                read_only_hint=tool["hints"]["read_only"],
                destructive_hint=tool["hints"]["destructive"],
                idempotent_hint=tool["hints"]["idempotent"],
                open_world_hint=tool["hints"]["open_world"],
            ),
        )
        for tool in compiled
    ]


def main() -> None:
    tools = listed(sys.argv[sys.argv.index("--tools") + 1]) if "--tools" in sys.argv else [ECHO]
    server = build_server(os.path.abspath(sys.argv[1]), tools)
    if "--port" not in sys.argv:
        anyio.run(serve_stdio, server)
        return
    import uvicorn

    port = int(sys.argv[sys.argv.index("--port") + 1])
    # asyncio's loop, as the SDK alone gives: uvicorn would pick up uvloop (a toolkiln
    # dependency) by itself, and uvloop's subprocess spawn forks the whole process per
    # call, which made this server's calls 1.6-2x slower: a ratio that flattered toolkiln.
    app = server.streamable_http_app()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", loop="asyncio")


if __name__ == "__main__":
    main()
