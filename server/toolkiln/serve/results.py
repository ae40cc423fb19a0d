"""A tool as `tools/list` shows it and a run as `tools/call` answers it, in wire form."""

from __future__ import annotations

from typing import Any

import mcp.types as types
from pydantic import TypeAdapter, ValidationError

from toolkiln.model import CompiledTool
from toolkiln.runner import ToolResult
from toolkiln.serve.confirm import with_confirm_argument


def listed_tool(tool: CompiledTool, confirm_argument: bool = False) -> dict[str, Any]:
    """A tool as `tools/list` shows it, in its wire form. Plain JSON rather than
    `types.Tool` models: with 1,000 tools the models and their dump took ~20 ms of the
    first `tools/list`, and the SDK checks the result against the client's protocol
    version on its way out anyway. `confirm_argument`: for a client that cannot be
    asked, a tool needing confirmation requires `confirm: true`."""
    hints = tool.hints
    annotations = {
        "title": tool.title,
        "readOnlyHint": hints.read_only,
        "destructiveHint": hints.destructive,
        "idempotentHint": hints.idempotent,
        "openWorldHint": hints.open_world,
    }
    schema = tool.input_schema
    if confirm_argument and tool.requires_confirmation:
        schema = with_confirm_argument(schema)
    listed = {
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "inputSchema": schema,
        "annotations": _without_none(annotations) or None,
        # A built-in tool (run_command) has no script.
        "_meta": _without_none(
            {"toolkiln/dialect": tool.dialect, "toolkiln/script": tool.script_path or None}
        ),
    }
    return _without_none(listed)


def _without_none(values: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


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
