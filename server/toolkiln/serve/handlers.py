"""MCP handlers built from the registry, on the SDK's low-level `Server`.

The only package that imports `mcp`. A tool that fails is an `isError` result the
model can read; only an unknown tool is a protocol error (-32602), as the spec asks.
"""

from __future__ import annotations

import logging
from typing import Any

import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from toolkiln import __version__
from toolkiln.model import CompiledTool
from toolkiln.runner import Registry, RunSettings, ToolResult, UnknownToolError, call_tool

logger = logging.getLogger(__name__)

SERVER_NAME = "toolkiln"


def build_server(registry: Registry, settings: RunSettings) -> Server[Any]:
    tool_list: list[types.Tool] | None = None

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        nonlocal tool_list
        if tool_list is None:  # built on the first request, not at start
            tool_list = [mcp_tool(tool) for tool in registry.tools.values()]
        return types.ListToolsResult(tools=tool_list)

    async def call(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            result = await call_tool(registry, params.name, params.arguments, settings)
        except UnknownToolError as error:
            raise MCPError(code=types.INVALID_PARAMS, message=str(error)) from None
        except Exception:
            logger.exception("tool %r failed inside toolkiln", params.name)
            result = ToolResult(
                text=f"Tool {params.name!r} failed inside toolkiln; see the server log.", is_error=True
            )
        return mcp_result(result)

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=f"Tools from the scripts in {registry.tools_dir}.",
        on_list_tools=list_tools,
        on_call_tool=call,
        get_tool_input_schema=lambda name: (
            registry.tools[name].input_schema if name in registry.tools else None
        ),
    )


def mcp_tool(tool: CompiledTool) -> types.Tool:
    hints = tool.hints
    annotations = None
    if tool.title or any(value is not None for value in hints.model_dump().values()):
        annotations = types.ToolAnnotations(
            title=tool.title,
            read_only_hint=hints.read_only,
            destructive_hint=hints.destructive,
            idempotent_hint=hints.idempotent,
            open_world_hint=hints.open_world,
        )
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=tool.input_schema,
        annotations=annotations,
        _meta={"toolkiln/script": tool.script_path, "toolkiln/dialect": tool.dialect},
    )


def mcp_result(result: ToolResult) -> types.CallToolResult:
    meta: dict[str, Any] = {}
    if result.exit_code is not None:
        meta["toolkiln/exitCode"] = result.exit_code
    if result.duration_ms is not None:
        meta["toolkiln/durationMs"] = result.duration_ms
    if result.truncated:
        meta["toolkiln/truncated"] = True
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=result.text)],
        structured_content=result.structured,
        is_error=result.is_error,
        _meta=meta or None,
    )
