"""What `tools/list` and `initialize` say about the served tools, in wire form, without the
mcp SDK: the early answers of stdio (early.py) and the SDK's handlers share it."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolkiln.model import CompiledTool

CONFIRM = "confirm"


def server_instructions(tools_dir: Path) -> str:
    """The `instructions` of the `initialize` result."""
    return f"Tools from the scripts in {tools_dir}."


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


def with_confirm_argument(input_schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's schema as a client without elicitation sees it: `confirm: true` is required."""
    schema = copy.deepcopy(input_schema)
    schema["properties"][CONFIRM] = {
        "type": "boolean",
        "const": True,
        "description": "This tool needs confirmation: set to true only once the user has agreed to run it.",
    }
    schema["required"] = [*schema.get("required", []), CONFIRM]
    return schema


def _without_none(values: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}
