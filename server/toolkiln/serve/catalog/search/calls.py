"""A `tools/call` of a search-mode tool, answered (search) or turned into the call of
the tool it names (call), before anything else sees the request."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import anyio
import mcp.types as types
from mcp.server.context import ServerRequestContext

from toolkiln.serve.calls.record import client_name
from toolkiln.serve.catalog.search.mode import Refusal
from toolkiln.serve.tasks.protocol import may_create_task, missing_extension

if TYPE_CHECKING:
    from toolkiln.serve.service import ToolService


async def route_call(
    service: ToolService, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult | types.CallToolRequestParams:
    """The search tool's result; or, for the call tool, the request as if the client had
    called the tool it names (so confirmation, tasks, limits and the audit see that
    tool); any other request as it is."""
    search, registry = service.catalog_search, service.registry
    if not search.active(registry, client_name(ctx)):
        return params
    role = search.role_of(registry, params.name)
    if role is None:
        return params
    if role == "search":
        visible = service.list_tools(ctx)["tools"]
        # The first search of a catalog builds its index (~1 s at 5,000 tools): off the event loop.
        await anyio.to_thread.run_sync(search.index, registry)
        found = search.search(registry, visible, params.arguments)
        if isinstance(found, Refusal):
            return _error(found.text)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(found, ensure_ascii=False))],
            structured_content=found,
        )
    read = search.read_call(registry, params.arguments)
    if isinstance(read, Refusal):
        return _error(read.text)
    tool = registry.tools[read.name]
    if tool.task_support == "required" and not may_create_task(ctx):  # as a direct call would be
        raise missing_extension(f"Tool {read.name!r} runs only as a task: it")
    return params.model_copy(update={"name": read.name, "arguments": read.arguments})


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
