"""Search mode for big catalogs: when it is on, `tools/list` shows two tools (search and
call) instead of every tool; each tool stays callable by its own name.

`CatalogSearch` decides, per catalog and client, whether search mode is on
(config/server.json `catalog`, or `serve --catalog-search`), keeps one index per
catalog (built at the first search after a reload), answers the search tool, and
turns a call of the call tool into the call of the tool it names, which then goes the
one way every call goes (confirmation, limits, confinement, tasks, audit).
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from toolkiln.errors import ConfigError
from toolkiln.model import CatalogSettings
from toolkiln.runner import Registry
from toolkiln.schema import ArgumentChecker
from toolkiln.serve.catalog.search.index import INSTALL_HINT, ToolIndex, bm25_installed, load_bm25
from toolkiln.serve.catalog.search.meta import CALL_SCHEMA, DEFAULT_RESULTS, SEARCH_SCHEMA, meta_tools
from toolkiln.serve.results import listed_tool

logger = logging.getLogger(__name__)

SearchMode = Literal["auto", "on", "off"]


@functools.cache
def _checker(schema_name: Literal["search", "call"]) -> ArgumentChecker:
    """The meta tools' argument checks, made on their first call (as a tool's own is):
    making one imports jsonschema, ~60 ms that a server's start does not need."""
    return ArgumentChecker(SEARCH_SCHEMA if schema_name == "search" else CALL_SCHEMA)


@dataclass(frozen=True)
class CallOf:
    """A call of the call tool, read: the tool it names and that tool's arguments."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Refusal:
    """A call of a search-mode tool that cannot go on: its text, for an `isError` result."""

    text: str


class CatalogSearch:
    """Whether search mode is on, and the index of the catalog being served."""

    def __init__(self, mode: SearchMode | None = None, above: int | None = None) -> None:
        self.mode = mode  # `serve --catalog-search`: over config/server.json
        self.above = above  # `serve --search-above`
        self._built: tuple[Registry, ToolIndex] | None = None  # the catalog indexed, and its index
        self._refused: Registry | None = None  # a reloaded catalog whose tools collide: logged once

    def settings(self, registry: Registry) -> CatalogSettings:
        settings = registry.catalog.catalog_search
        changes: dict[str, Any] = {}
        if self.mode is not None:
            changes["search"] = self.mode
        if self.above is not None:
            changes["search_above"] = self.above
        return settings.model_copy(update=changes) if changes else settings

    def check_start(self, registry: Registry) -> None:
        """At the start of `serve`: a clear error where search mode would be on but cannot be."""
        settings = self.settings(registry)
        if settings.search == "off" or not self._over_threshold(registry, settings):
            return
        collisions = _collisions(registry, settings)
        if collisions:
            raise ConfigError(collisions)
        if settings.search == "on":
            load_bm25()  # the install hint, now
        elif not bm25_installed():
            logger.warning(
                "%d tools are served, more than catalog.search_above (%d), but %s; every tool is listed",
                len(registry.tools),
                settings.search_above,
                INSTALL_HINT,
            )
            return
        logger.info(
            "search mode: tools/list shows %s and %s instead of the %d tools (config/server.json "
            "`catalog`, serve --catalog-search); each tool is still callable by its name",
            settings.search_tool,
            settings.call_tool,
            len(registry.tools),
        )

    def active(self, registry: Registry, client: str | None) -> bool:
        """Whether this client gets the two tools instead of the catalog."""
        settings = self.settings(registry)
        if settings.search == "off" or not self._over_threshold(registry, settings):
            return False
        if settings.search == "auto" and client is not None and client in settings.clients_that_search:
            return False
        if not bm25_installed():  # said at the start (check_start)
            return False
        collisions = _collisions(registry, settings)
        if collisions:  # a reload brought a tool named as one of the two: list every tool instead
            if self._refused is not registry:
                self._refused = registry
                logger.error("search mode is off for this catalog: %s", collisions)
            return False
        return True

    def listed(self, registry: Registry) -> list[dict[str, Any]]:
        return meta_tools(self.settings(registry), len(registry.tools))

    def role_of(self, registry: Registry, name: str) -> Literal["search", "call"] | None:
        settings = self.settings(registry)
        return "search" if name == settings.search_tool else "call" if name == settings.call_tool else None

    def search(
        self, registry: Registry, visible: list[dict[str, Any]], arguments: Mapping[str, Any] | None
    ) -> dict[str, Any] | Refusal:
        """The search tool's answer (its structured content): the matches among the tools
        this caller's own `tools/list` would show (`visible`), in that wire form."""
        arguments = dict(arguments or {})
        problems = _checker("search").problems(arguments)
        if problems:
            return Refusal("Invalid arguments: " + "; ".join(problems))
        by_name = {tool["name"]: tool for tool in visible}
        limit = int(arguments.get("limit", DEFAULT_RESULTS))
        # More than asked for: some of the best may not be this caller's to see.
        found = self.index(registry).search(str(arguments["query"]), limit + 20)
        matches = [by_name[name] for name, _score in found if name in by_name][:limit]
        return {
            "tools": [
                {key: tool[key] for key in ("name", "title", "description", "inputSchema") if key in tool}
                for tool in matches
            ],
            "total_tools": len(visible),
        }

    def index(self, registry: Registry) -> ToolIndex:
        """The index of all of `registry`'s tools: built once per catalog served (a reload
        swaps the registry, and the next search builds it again)."""
        built = self._built  # one read: a search in a worker thread may swap it meanwhile
        if built is None or built[0] is not registry:
            built = (registry, ToolIndex([listed_tool(tool) for tool in registry.tools.values()]))
            self._built = built
        return built[1]

    def read_call(self, registry: Registry, arguments: Mapping[str, Any] | None) -> CallOf | Refusal:
        """The tool a call of the call tool names, and its arguments; or why not."""
        arguments = dict(arguments or {})
        problems = _checker("call").problems(arguments)
        if problems:
            return Refusal("Invalid arguments: " + "; ".join(problems))
        name = str(arguments["name"])
        settings = self.settings(registry)
        if name in (settings.search_tool, settings.call_tool) or name not in registry.tools:
            return Refusal(
                f"No tool is named {json.dumps(name)}: find one with `{settings.search_tool}` "
                "and give its name exactly."
            )
        return CallOf(name, dict(arguments.get("arguments") or {}))

    @staticmethod
    def _over_threshold(registry: Registry, settings: CatalogSettings) -> bool:
        return settings.search == "on" or len(registry.tools) > settings.search_above


def _collisions(registry: Registry, settings: CatalogSettings) -> str:
    taken = [name for name in (settings.search_tool, settings.call_tool) if name in registry.tools]
    if not taken:
        return ""
    return (
        f"a served tool is named {', '.join(map(repr, taken))}, the name of a search-mode tool; "
        "rename the tool (`name` in its config under config/tools/), choose other names with "
        "config/server.json `catalog.search_tool` / `catalog.call_tool`, or turn search mode off "
        "(`serve --catalog-search off`, or `catalog.search` in config/server.json)"
    )
