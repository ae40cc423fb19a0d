"""Where the dashboard answers, and its routes, made on the first request there.

A server whose dashboard nobody opens never imports it: its panels, templates and
session signing cost ~10 ms of every start (of ~750 with 1,000 tools). The `Guard`
leaves the token to the dashboard on exactly these paths (`is_dashboard_path`), and
every one of them reaches the dashboard's own routes, which each admit their caller.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.routing import BaseRoute, Route, Router
from starlette.types import Receive, Scope, Send


def is_dashboard_path(path: str) -> bool:
    """The paths whose callers the dashboard admits itself (cookie or bearer header)."""
    return path == "/" or path.startswith("/dashboard/")


class DashboardMount:
    """An ASGI app at `/` and under `/dashboard/`: the routes `make` returns, made once,
    when the first request comes."""

    def __init__(self, make: Callable[[], list[BaseRoute]]) -> None:
        self._make = make
        self._router: Router | None = None

    def routes(self) -> list[BaseRoute]:
        return [Route("/", self), Route("/dashboard/{path:path}", self)]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._router is None:  # made without a turn of the loop: no second request sees None
            self._router = Router(self._make())
        await self._router(scope, receive, send)
