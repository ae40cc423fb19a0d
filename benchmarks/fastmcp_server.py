"""What a user would write instead of toolkiln: a FastMCP server (the `fastmcp` package, an
optional benchmark dependency: `pip install -e '.[bench]'`) with one `echo` tool that runs
the given script per call, its arguments as env vars, as the reference does.

    python benchmarks/fastmcp_server.py SCRIPT            # stdio
    python benchmarks/fastmcp_server.py SCRIPT --port N   # Streamable HTTP at /mcp
    python benchmarks/fastmcp_server.py SCRIPT --tools FILE

With `--tools`, it also lists every tool of a compiled `tools.json` (name, title,
description, input schema and hints, as read); every call runs SCRIPT.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import anyio
from fastmcp import FastMCP
from fastmcp.tools.base import Tool, ToolResult
from mcp.types import TextContent, ToolAnnotations


class ScriptTool(Tool):
    """A tool whose schema is given (not read from a function), run as SCRIPT."""

    script: str

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        env = {**os.environ, **{key: str(value) for key, value in arguments.items()}}
        done = await anyio.run_process([self.script], stdin=subprocess.DEVNULL, env=env, check=False)
        text = done.stdout.decode(errors="replace").removesuffix("\n")
        return ToolResult(content=[TextContent(type="text", text=text)], is_error=done.returncode != 0)


def build_server(script: str, catalog: str | None) -> FastMCP:
    server = FastMCP("fastmcp-bench")
    schema = {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}
    tools = [ScriptTool(name="echo", description="Print a message back", parameters=schema, script=script)]
    if catalog is not None:
        with open(catalog, encoding="utf-8") as file:
            compiled = json.load(file)["tools"]
        tools = [
            ScriptTool(
                name=tool["name"],
                title=tool["title"],
                description=tool["description"],
                parameters=tool["input_schema"],
                annotations=ToolAnnotations(
                    title=tool["title"],
                    read_only_hint=tool["hints"]["read_only"],
                    destructive_hint=tool["hints"]["destructive"],
                    idempotent_hint=tool["hints"]["idempotent"],
                    open_world_hint=tool["hints"]["open_world"],
                ),
                script=script,
            )
            for tool in compiled
        ]
    for tool in tools:
        server.add_tool(tool)
    return server


def main() -> None:
    catalog = sys.argv[sys.argv.index("--tools") + 1] if "--tools" in sys.argv else None
    server = build_server(os.path.abspath(sys.argv[1]), catalog)
    if "--port" not in sys.argv:
        server.run("stdio", show_banner=False)
        return
    port = int(sys.argv[sys.argv.index("--port") + 1])
    # asyncio's loop, as the reference's: with uvloop installed (toolkiln's dependency)
    # uvicorn would pick it, and its subprocesses fork the whole server per call.
    server.run(
        "http",
        host="127.0.0.1",
        port=port,
        path="/mcp",
        show_banner=False,
        log_level="warning",
        uvicorn_config={"loop": "asyncio"},
    )


if __name__ == "__main__":
    main()
