"""MCP resources: the files under `resources/`, each stateful tool's state, and the
catalog of all tools.

Files are read when a client asks (text, or base64 for binary); a file whose path
holds `{placeholders}` is a resource template, rendered with the values the URI gives
(escaped for the file's type: JSON, HTML or XML; render.escape_for).
A help-json tool that declares `"state": true` (seeds/000) is readable as
`toolkiln://tools/<name>/state` and as mcpd's `mcpd://<script path>/state`; reading
runs `script --state`. The catalog (`toolkiln://catalog`, also `scripts://` as in
seeds/002) lists every tool with its source and schema.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import mcp.types as types
from mcp.shared.exceptions import MCPError

from toolkiln.model import PLACEHOLDER, CompiledResource, CompiledTool
from toolkiln.render import RenderError, escape_for, render_text
from toolkiln.runner import ToolRunner
from toolkiln.runner.registry import OutsideFolderError

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
                uri=r.uri, name=r.name, title=r.title, description=r.description, mime_type=r.mime_type
            )
            for r in self.runner.registry.resources
            if not r.template
        ]
        resources += [
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

    def list_templates(self) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=r.uri,
                    name=r.name,
                    title=r.title,
                    description=r.description,
                    mime_type=r.mime_type,
                )
                for r in self.runner.registry.resources
                if r.template
            ]
        )

    async def read(self, uri: str, *, modern: bool = False) -> types.ReadResourceResult:
        """The resource at `uri`. An unknown one is -32002 (2025 specs), or on 2026-07-28
        connections -32602 (SEP-2164); either way the error's data names the URI."""
        for resource in self.runner.registry.resources:
            values = _match(resource, uri)
            if values is not None:
                return self._read_file(resource, uri, values)
        if uri in CATALOG_URIS:
            return _contents(uri, json.dumps(self.catalog(), indent=2), JSON)
        tool = self.stateful_tool(uri)
        if tool is None:
            code = types.INVALID_PARAMS if modern else RESOURCE_NOT_FOUND
            raise MCPError(code=code, message=f"Resource not found: {uri}", data={"uri": uri})
        result = await self.runner.read_state(tool.name)
        if result.is_error:
            raise MCPError(code=types.INTERNAL_ERROR, message=result.text)
        return _contents(uri, result.text, JSON if _is_json(result.text) else "text/plain")

    def _read_file(
        self, resource: CompiledResource, uri: str, values: dict[str, str]
    ) -> types.ReadResourceResult:
        try:
            path = self.runner.registry.resource_path(resource)
            data = path.read_bytes()
            if resource.binary:
                blob = base64.b64encode(data).decode("ascii")
                contents: Any = types.BlobResourceContents(uri=uri, blob=blob, mime_type=resource.mime_type)
                return types.ReadResourceResult(contents=[contents])
            text = data.decode("utf-8")
            if resource.template:
                # A value is escaped for the file's type: in JSON it cannot add a key.
                text = render_text(text, values, source=str(path), escape=escape_for(resource.mime_type))
        except (OSError, UnicodeDecodeError, RenderError, OutsideFolderError) as error:
            raise MCPError(
                code=types.INTERNAL_ERROR, message=f"Resource {uri} cannot be read: {error}"
            ) from None
        return _contents(uri, text, resource.mime_type)

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


def _match(resource: CompiledResource, uri: str) -> dict[str, str] | None:
    """The placeholder values when `uri` is this resource (or an instance of this template)."""
    if not resource.template:
        return {} if uri == resource.uri else None
    pattern = "".join(
        f"(?P<{piece[1:-1]}>[^/]+)" if PLACEHOLDER.fullmatch(piece) else re.escape(piece)
        for piece in re.split(r"(\{[A-Za-z_][A-Za-z0-9_]*\})", resource.uri)
    )
    match = re.fullmatch(pattern, uri)
    return match.groupdict() if match else None
