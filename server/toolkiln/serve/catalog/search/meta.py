"""The search mode's two tools as `tools/list` shows them, and their arguments.

`search_tools {query, limit}` answers with each match's name, title, description and
input schema (as the caller's own `tools/list` would show them); `call_tool {name,
arguments}` calls one. Their names come from config/server.json `catalog`.
"""

from __future__ import annotations

from typing import Any

from toolkiln.model import CatalogSettings

MAX_QUERY_CHARS = 1000
MAX_RESULTS = 20
DEFAULT_RESULTS = 5

SEARCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_QUERY_CHARS,
            "description": "What you want to do, in words (e.g. 'resize an image', 'open a pull request').",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_RESULTS,
            "default": DEFAULT_RESULTS,
            "description": "How many tools to return at most.",
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}

CALL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 256, "description": "The tool's name."},
        "arguments": {
            "type": "object",
            "default": {},
            "description": "The tool's arguments, as its input schema (from the search) describes them.",
        },
    },
    "required": ["name"],
    "additionalProperties": False,
}


def meta_tools(settings: CatalogSettings, count: int) -> list[dict[str, Any]]:
    """The two tools, in `tools/list` wire form, for a catalog of `count` tools."""
    search_description = (
        f"Search this server's {count} tools by what they do. Returns the best matches, each "
        "with its name, description and input schema. Then run one with "
        f"`{settings.call_tool}` (or call it by its name directly)."
    )
    call_description = (
        f"Run one of this server's tools found with `{settings.search_tool}`: give its "
        "`name` and its `arguments` as its input schema describes them."
    )
    return [
        {
            "name": settings.search_tool,
            "title": "Search tools",
            "description": search_description,
            "inputSchema": SEARCH_SCHEMA,
            "annotations": {"title": "Search tools", "readOnlyHint": True, "openWorldHint": False},
        },
        {
            "name": settings.call_tool,
            "title": "Call a tool",
            "description": call_description,
            "inputSchema": CALL_SCHEMA,
            "annotations": {"title": "Call a tool"},
        },
    ]
