"""A dashboard switch reaches every replica: news of it on Redis pub/sub (`state.url`).

The replica that served the switch writes the per-tool config and rebuilds (as on one
machine), then publishes on `<prefix>catalog` what changed: the tool's key and
`enabled`, and the digest of the tools.json it built. Each other replica, on hearing it:

- when its own tools.json is that one (replicas that share the config folder, the
  README's deployment): loads it and serves it, without building again;
- else (each replica has its own copy of the folder): writes the same switch into its
  own per-tool config and rebuilds its own folder.

Either way its clients are told the lists changed. The last news is also kept (with an
id of its own) in `<prefix>catalog:last`: a replica whose connection to Redis broke applies it
once it is back, if it missed it. When Redis cannot be reached, the switch still
applies on the replica that served it, and the answer says the others may lag.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from pathlib import Path
from typing import Any

import anyio
import redis.asyncio
import redis.exceptions

from toolkiln.errors import ToolkilnError
from toolkiln.model.state import redact_url
from toolkiln.runner import Registry
from toolkiln.serve.dashboard.catalog import set_enabled
from toolkiln.serve.service import ToolService
from toolkiln.serve.watch import Rebuild, reload

logger = logging.getLogger(__name__)

CONNECT_SECONDS = 2.0
RECONNECT_SECONDS = 2.0


class CatalogNews:
    """Publishes this replica's switches, and applies the others'."""

    def __init__(
        self, url: str, *, prefix: str, service: ToolService, config_dir: Path, rebuild: Rebuild
    ) -> None:
        self.where = redact_url(url)
        self.channel = f"{prefix}catalog"
        self.last_key = f"{prefix}catalog:last"
        self.service = service
        self.config_dir = config_dir
        self.rebuild = rebuild
        self.instance = secrets.token_hex(12)
        self.client: redis.asyncio.Redis = redis.asyncio.Redis.from_url(
            url, socket_connect_timeout=CONNECT_SECONDS, decode_responses=True
        )
        self._heard: str | None = None  # the id of the last news applied or seen

    async def announce(self, key: str, enabled: bool) -> str | None:
        """Tell the other replicas of a switch applied here; None, or why they may lag."""
        news = {
            "id": secrets.token_hex(12),
            "from": self.instance,
            "key": key,
            "enabled": enabled,
            "digest": self._digest(),
        }
        text = json.dumps(news)
        try:
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.set(self.last_key, text)
                pipe.publish(self.channel, text)
                await pipe.execute()
        except (redis.exceptions.RedisError, OSError) as error:
            logger.warning("the other replicas were not told of the switch of %s: %s", key, error)
            return (
                f"applied on this replica only: the others were not told (Redis at {self.where} "
                "cannot be reached), and serve the previous tools until a later switch reaches them "
                "or they restart"
            )
        self._heard = str(news["id"])
        return None

    async def listen(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Apply the others' news until cancelled; through Redis outages, reconnecting."""
        started, first = False, True
        while True:
            try:
                async with self.client.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(self.channel)
                    await self._catch_up(apply=not first)
                    first = False
                    if not started:
                        task_status.started()
                        started = True
                    async for message in pubsub.listen():
                        await self._apply(json.loads(message["data"]))
            except (redis.exceptions.RedisError, OSError) as error:
                if first or started:
                    logger.warning(
                        "switches on other replicas do not reach this one while Redis at %s "
                        "cannot be reached (%s); retrying",
                        self.where,
                        error,
                    )
                if not started:
                    task_status.started()
                    started = True
                await anyio.sleep(RECONNECT_SECONDS)

    async def close(self) -> None:
        await self.client.aclose()

    async def _catch_up(self, *, apply: bool) -> None:
        """The last news, applied when it was missed (not at start: the replica has just
        loaded what is current)."""
        last = await self.client.get(self.last_key)
        if last is None:
            return
        news = json.loads(last)
        if apply:
            await self._apply(news)
        else:
            self._heard = news.get("id")

    async def _apply(self, news: dict[str, Any]) -> None:
        if news.get("from") == self.instance or news.get("id") == self._heard:
            return
        self._heard = news.get("id")
        key, enabled = str(news.get("key")), bool(news.get("enabled"))
        if news.get("digest") == self._digest():
            how: Rebuild = self._load  # the folder is shared: what they built is here
        else:
            try:
                await anyio.to_thread.run_sync(set_enabled, self.config_dir, key, enabled)
            except (ToolkilnError, OSError) as error:
                logger.warning("the switch of %s on another replica does not apply here: %s", key, error)
                return
            how = self.rebuild
        logger.info("another replica %s %s; reloading", "enabled" if enabled else "disabled", key)
        await reload(self.service, how)

    def _load(self) -> Registry | None:
        try:
            return Registry.load(self.service.registry.catalog_file)
        except ToolkilnError as error:
            logger.error("%s", error)
            return None

    def _digest(self) -> str | None:
        try:
            return hashlib.sha256(self.service.registry.catalog_file.read_bytes()).hexdigest()
        except OSError:
            return None


def open_catalog_news(service: ToolService, config_dir: Path, rebuild: Rebuild | None) -> CatalogNews | None:
    """The news of `state.url`, if one is set and this server's switches can rebuild."""
    state = service.tasks.state
    if state.url is None or rebuild is None:
        return None
    return CatalogNews(
        state.url, prefix=state.key_prefix, service=service, config_dir=config_dir, rebuild=rebuild
    )
