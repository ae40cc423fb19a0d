"""Build's check of the search mode's two tools (config/server.json `catalog`): a
served tool may not carry the name of either while search mode may be on."""

from __future__ import annotations

from collections.abc import Iterable

from toolkiln.model import CatalogSettings, CompiledTool


def catalog_search_collisions(tools: Iterable[CompiledTool], settings: CatalogSettings) -> list[str]:
    """An error for each tool named as one of the search mode's tools; none when it is off."""
    if settings.search == "off":
        return []
    meta = {settings.search_tool: "search_tool", settings.call_tool: "call_tool"}
    return [
        f"tool {tool.name!r} ({tool.script_path or 'built in'}) has the name of the catalog's "
        f"{meta[tool.name].replace('_', ' ')} (config/server.json `catalog.{meta[tool.name]}`): "
        f"give the tool another `name` in its config under config/tools/, or set "
        f'`catalog.{meta[tool.name]}` to another name, or `catalog.search` to "off"'
        for tool in tools
        if tool.name in meta
    ]
