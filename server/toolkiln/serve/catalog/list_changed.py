"""Telling clients that something changed, in both protocol eras.

2025-11-25 clients get `notifications/*/list_changed` on their connection and
`notifications/resources/updated` for the resources they subscribed to; 2026-07-28
clients get the same events on their `subscriptions/listen` streams (the SDK's bus).
A connection is known by its HTTP session id; stdio has a single connection.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ToolsListChanged,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolkiln.serve.calls.progress import connection_key

logger = logging.getLogger(__name__)


class Broadcaster:
    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()
        self.listen_handler = ListenHandler(self.bus)
        self._connections: dict[str | None, ServerSession] = {}
        self._subscribers: dict[str, dict[str | None, ServerSession]] = {}

    def seen(self, ctx: ServerRequestContext[Any]) -> None:
        """Remember a handshake-era connection, to tell it when the lists change."""
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self._connections[connection_key(ctx)] = ctx.session

    def subscribe(self, ctx: ServerRequestContext[Any], uri: str) -> None:
        self._subscribers.setdefault(uri, {})[connection_key(ctx)] = ctx.session

    def unsubscribe(self, ctx: ServerRequestContext[Any], uri: str) -> None:
        self._subscribers.get(uri, {}).pop(connection_key(ctx), None)

    async def resource_updated(self, uri: str) -> None:
        await self.bus.publish(ResourceUpdated(uri=uri))
        subscribers = self._subscribers.get(uri, {})
        for key, session in list(subscribers.items()):
            if not await _send(session.send_resource_updated(uri)):
                subscribers.pop(key, None)

    async def lists_changed(
        self, *, tools: bool = False, prompts: bool = False, resources: bool = False
    ) -> None:
        events = [
            event
            for changed, event in (
                (tools, ToolsListChanged()),
                (prompts, PromptsListChanged()),
                (resources, ResourcesListChanged()),
            )
            if changed
        ]
        for event in events:
            await self.bus.publish(event)
        for key, session in list(self._connections.items()):
            sends = [
                send
                for changed, send in (
                    (tools, session.send_tool_list_changed),
                    (prompts, session.send_prompt_list_changed),
                    (resources, session.send_resource_list_changed),
                )
                if changed
            ]
            for send in sends:
                if not await _send(send()):
                    self._connections.pop(key, None)
                    break


async def _send(notification: Any) -> bool:
    """Await a notification; False when its connection is gone."""
    try:
        with anyio.fail_after(5):
            await notification
    except anyio.get_cancelled_exc_class():
        raise
    except Exception:
        logger.debug("dropping a connection that went away", exc_info=True)
        return False
    return True
