"""The dashboard's switches: a tool's `enabled`, and the fallback (fallback_switch.py).

Each writes its setting, rebuilds, and serves the result at once (as `--watch` does on
a change): MCP clients are told the list changed, and calls in flight finish. With a
state URL, a tool switch reaches the other replicas through Redis (replicas/catalog_sync.py).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from toolkiln.errors import ConfigError
from toolkiln.render import render_page
from toolkiln.serve.catalog.watch import Rebuild, reload
from toolkiln.serve.dashboard.catalog import ToolRow
from toolkiln.serve.dashboard.fallback_switch import switch_fallback
from toolkiln.serve.dashboard.gate import TEMPLATES, Gate, flag
from toolkiln.serve.service import ToolService
from toolkiln.switches import set_tool_enabled

if TYPE_CHECKING:
    from toolkiln.serve.replicas.catalog_sync import CatalogNews

logger = logging.getLogger(__name__)


@dataclass
class Switches:
    gate: Gate
    service: ToolService
    config_dir: Path
    rebuild: Rebuild | None  # None: the switches are read-only
    news: CatalogNews | None
    rows: Callable[[], Awaitable[list[ToolRow]]]

    async def tool(self, request: Request) -> Response:
        """Write the tool's `enabled`, rebuild, and serve the result (as `--watch` does)."""
        if (refusal := await self.gate.refusal(request)) is not None:
            return refusal
        if self.rebuild is None:
            return JSONResponse({"error": "this server cannot rebuild its tools"}, status_code=409)
        key = request.path_params["key"]
        if (enabled := await flag(request, "enabled")) is None:
            return JSONResponse({"error": 'send {"enabled": true} or {"enabled": false}'}, status_code=400)
        try:
            await anyio.to_thread.run_sync(set_tool_enabled, self.config_dir, key, enabled)
        except ConfigError as error:
            return JSONResponse({"error": str(error)}, status_code=404)
        except OSError as error:
            return JSONResponse({"error": f"cannot write the config: {error}"}, status_code=500)
        logger.info("dashboard: %s %s; rebuilding", "enabled" if enabled else "disabled", key)
        if await reload(self.service, self.rebuild) is None:
            message = "the rebuild failed (the server log says why); still serving the last good tools"
            return JSONResponse({"error": message}, status_code=500)
        lag = await self.news.announce(key, enabled) if self.news is not None else None
        rows = [row for row in await self.rows() if row.key == key]
        card = render_page(TEMPLATES, "_tool.html", {"row": rows[0], "can_switch": True}) if rows else ""
        answer = {"enabled": enabled, "served": len(self.service.registry.tools), "card": card}
        return JSONResponse({**answer, **({"warning": lag} if lag else {})})

    async def fallback(self, request: Request) -> Response:
        """Serve the folder's unread scripts (or stop): rediscover, rebuild, serve the result."""
        if (refusal := await self.gate.refusal(request)) is not None:
            return refusal
        if self.rebuild is None:
            return JSONResponse({"error": "this server cannot rebuild its tools"}, status_code=409)
        if (on := await flag(request, "on")) is None:
            return JSONResponse({"error": 'send {"on": true} or {"on": false}'}, status_code=400)
        try:
            await anyio.to_thread.run_sync(switch_fallback, self.service.registry, self.config_dir, on)
        except ConfigError as error:
            return JSONResponse({"error": str(error)}, status_code=409)
        except OSError as error:
            return JSONResponse({"error": f"cannot write the config: {error}"}, status_code=500)
        logger.info("dashboard: fallback %s; rediscovered, rebuilding", "on" if on else "off")
        if await reload(self.service, self.rebuild) is None:
            message = "the rebuild failed (the server log says why); still serving the last good tools"
            return JSONResponse({"error": message}, status_code=500)
        return JSONResponse({"on": on, "served": len(self.service.registry.tools)})
