"""MCP resources: each stateful tool's state, and the catalog of all tools.

A help-json tool that declares `"state": true` (seeds/000) is readable as
`toolkiln://tools/<name>/state` and as mcpd's `mcpd://<script path>/state`; reading
runs `script --state`. The catalog (`toolkiln://catalog`, also `scripts://` as in
seeds/002) lists every tool with its source and schema.
"""

from __future__ import annotations

import json
from typing import Any

import mcp.types as types
from mcp.shared.exceptions import MCPError

from toolkiln.model import CompiledTool
from toolkiln.runner import ToolRunner

CATALOG_URIS = ("toolkiln://catalog", "scripts://")
JSON = "application/json"
RESOURCE_NOT_FOUND = -32002


def state_uris(tool: CompiledTool) -> tuple[str, str]:
    return f"toolkiln://tools/{tool.name}/state", f"mcpd://{tool.script_path}/state"


class ResourceService:
    def __init__(self, runner: ToolRunner) -> None:
        self.runner = runner

    def list_resources(self) -> types.ListResourcesResult:
        resources = [
            types.Resource(
                uri=uri,
                name="catalog" if uri == CATALOG_URIS[0] else "scripts",
                title="Tool catalog",
                description="Every tool this server offers, with its source and input schema.",
                mime_type=JSON,
            )
            for uri in CATALOG_URIS
        ]
        for tool in self.runner.registry.tools.values():
            if tool.state:
                resources += [
                    types.Resource(
                        uri=uri,
                        name=f"{tool.name}-state",
                        title=f"State of {tool.title or tool.name}",
                        description=f"The current state of {tool.name} (`{tool.script_path} --state`).",
                        mime_type=JSON,
                    )
                    for uri in state_uris(tool)
                ]
        return types.ListResourcesResult(resources=resources)

    async def read(self, uri: str) -> types.ReadResourceResult:
        if uri in CATALOG_URIS:
            return _contents(uri, json.dumps(self.catalog(), indent=2), JSON)
        tool = self.stateful_tool(uri)
        if tool is None:
            raise MCPError(code=RESOURCE_NOT_FOUND, message=f"Resource not found: {uri}")
        result = await self.runner.read_state(tool.name)
        if result.is_error:
            raise MCPError(code=types.INTERNAL_ERROR, message=result.text)
        return _contents(uri, result.text, JSON if _is_json(result.text) else "text/plain")

    def stateful_tool(self, uri: str) -> CompiledTool | None:
        return next(
            (t for t in self.runner.registry.tools.values() if t.state and uri in state_uris(t)), None
        )

    def catalog(self) -> list[dict[str, Any]]:
        return [
            {
                "name": tool.name,
                "title": tool.title,
                "description": tool.description,
                "dialect": tool.dialect,
                "source": tool.script_path,
                "state": tool.state,
                "tags": tool.tags,
                "inputSchema": tool.input_schema,
            }
            for tool in self.runner.registry.tools.values()
        ]


def _contents(uri: str, text: str, mime_type: str) -> types.ReadResourceResult:
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, text=text, mime_type=mime_type)]
    )


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True
