"""A tool as `tools/list` shows it and a run as `tools/call` answers it, in wire form."""

from __future__ import annotations

from typing import Any

import mcp.types as types
from pydantic import TypeAdapter, ValidationError

from toolkiln.runner import ToolResult
from toolkiln.serve.tool_list import listed_tool

__all__ = ["listed_tool", "mcp_result"]


def mcp_result(result: ToolResult) -> types.CallToolResult:
    meta: dict[str, Any] = dict(result.meta or {})
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=result.text)]
    if result.content is not None:
        try:
            content = _CONTENT.validate_python(result.content)
        except ValidationError as error:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=_content_error(error))], is_error=True
            )
    if result.exit_code is not None:
        meta["toolkiln/exitCode"] = result.exit_code
    if result.duration_ms is not None:
        meta["toolkiln/durationMs"] = result.duration_ms
    if result.truncated:
        meta["toolkiln/truncated"] = True
    return types.CallToolResult(
        content=content,
        structured_content=result.structured,
        is_error=result.is_error,
        _meta=meta or None,
    )


_CONTENT = TypeAdapter(list[types.ContentBlock])


def _content_error(error: ValidationError) -> str:
    """Which item of a rich result breaks the protocol, and how."""
    problems = [
        f"- content item {problem['loc'][0] + 1}: {problem['msg']}"  # type: ignore[operator]
        for problem in error.errors(include_url=False)
    ]
    return "The tool printed a `content` array that is not valid MCP content:\n" + "\n".join(problems[:5])
