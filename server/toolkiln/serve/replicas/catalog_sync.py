"""Dashboard switches and rebuilds reach every replica: news on Redis pub/sub (`state.url`).

The replica that served a switch writes the per-tool config and rebuilds (as on one
machine), then publishes on `<prefix>catalog` what changed: the tool's key and
`enabled`, and the digest of the tools.json it built. Each other replica, on hearing it:

- when its own tools.json is that one (replicas that share the config folder, the
  README's deployment): loads it and serves it, without building again;
- else (each replica has its own copy of the folder): writes the same switch into its
  own per-tool config and rebuilds its own folder.

A rebuild (`toolkiln build`, or a `serve --watch` replica: replicas/announce.py) is news of
the digest alone: a replica whose tools.json is the one announced loads it; one whose
tools.json differs (its own copy) warns that it serves another catalog, and builds
nothing: news may not make a replica read scripts or run anything (replicas/news.py).

Either way its clients are told the lists changed. The last news is also kept (with an
id of its own) in `<prefix>catalog:last`: a replica whose connection to Redis broke applies it
once it is back, if it missed it. When Redis cannot be reached, the switch still
applies on the replica that served it, the answer says the others lag for now, and
the news is kept (replicas/announce.py `UntoldNews`, a `--watch` rebuild's too): once this
replica reaches Redis again it first applies `catalog:last` if that is newer, and
else tells its own, so every replica converges on the last change made.

News is sealed with the shared secret (`state.secret_file`; sealed_messages.py), as a
switch or as a rebuild, for this deployment: whoever can write to Redis cannot switch
a tool or announce a rebuild. A replica applies only news issued after the newest it
has applied (and after it started, give or take SKEW_SECONDS of clocks that disagree):
a genuine news replayed later, to switch a tool back, is refused. Without a secret no
news is told or applied (the server's start says so). What does not open, or is not
news exactly (replicas/news.py), is ignored with a warning.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import anyio
import redis.asyncio
import redis.exceptions

from toolkiln.errors import ToolkilnError
from toolkiln.model.state import redact_url
from toolkiln.runner import Registry
from toolkiln.serve.catalog.watch import Rebuild, reload
from toolkiln.serve.replicas.announce import UntoldNews
from toolkiln.serve.replicas.news import News, RebuildNews, digest_of, dump_news, read_news, switch_news
from toolkiln.serve.sealed_messages import SKEW_SECONDS, SealError, Seals
from toolkiln.serve.service import ToolService
from toolkiln.switches import set_tool_enabled

logger = logging.getLogger(__name__)

CONNECT_SECONDS = 2.0
RECONNECT_SECONDS = 2.0


class CatalogNews:
    """Publishes this replica's switches, and applies the others'."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str,
        instance: str,
        seals: Seals | None,
        untold: UntoldNews,
        service: ToolService,
        config_dir: Path,
        rebuild: Rebuild,
    ) -> None:
        self.where = redact_url(url)
        self.channel = f"{prefix}catalog"
        self.last_key = f"{prefix}catalog:last"
        self.service = service
        self.config_dir = config_dir
        self.rebuild = rebuild
        # This server's name in its news; a `--watch` rebuild here announces under it too.
        self.instance = instance
        self.client: redis.asyncio.Redis = redis.asyncio.Redis.from_url(
            url, socket_connect_timeout=CONNECT_SECONDS, decode_responses=True
        )
        self._heard: str | None = None  # the id of the last news applied or seen
        self.seals = seals  # None: no shared secret, no news told or applied
        self._newest = time.time() - SKEW_SECONDS  # when the newest news applied was issued
        self.untold = untold  # news made here while Redis was away

    async def announce(self, key: str, enabled: bool) -> str | None:
        """Tell the other replicas of a switch applied here; None, or why they may lag."""
        if self.seals is None:
            return (
                "applied on this replica only: replicas tell each other of a switch only when they "
                "share a secret to seal it with (state.secret_file, or TOOLKILN_STATE_SECRET_FILE)"
            )
        news, now = switch_news(self.instance, key, enabled, self._digest()), time.time()
        text = self.seals.seal("switch-news", dump_news(news), now=now)
        self._heard, self._newest = news.id, max(self._newest, int(now * 1000) / 1000)
        try:
            await self._tell(text)
        except (redis.exceptions.RedisError, OSError) as error:
            logger.warning("the other replicas were not told of the switch of %s yet: %s", key, error)
            self.untold.keep(text, int(now * 1000) / 1000)
            return (
                f"applied on this replica only for now: the others were not told (Redis at {self.where} "
                "cannot be reached); this replica tells them when Redis is back"
            )
        return None

    async def _tell(self, text: str) -> None:
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.set(self.last_key, text)
            pipe.publish(self.channel, text)
            await pipe.execute()

    async def _tell_untold(self) -> None:
        """Tell the news made here while Redis was away, unless newer was applied since."""
        kept = self.untold.take()
        if kept is None:
            return
        text, issued = kept
        if issued < self._newest:  # another replica's, made later, was applied here: it stands
            logger.info("news made here while Redis was away is older than news applied since: not told")
            return
        try:
            await self._tell(text)
        except BaseException:
            self.untold.keep(text, issued)
            raise
        self._newest = max(self._newest, issued)
        logger.info("told the other replicas of the change made here while Redis was away")

    async def listen(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Apply the others' news until cancelled; through Redis outages, reconnecting."""
        started, first = False, True
        while True:
            try:
                async with self.client.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(self.channel)
                    await self._catch_up(apply=not first)
                    await self._tell_untold()
                    first = False
                    if not started:
                        task_status.started()
                        started = True
                    async for message in pubsub.listen():
                        await self._apply(message["data"])
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
        opened = self._open(last, quiet=True)
        if apply and opened is not None and opened[0].id != self._heard and opened[1] > self._newest:
            await self._apply(last)
        elif not apply and opened is not None:
            self._heard, self._newest = opened[0].id, max(self._newest, opened[1])

    def _open(self, text: object, *, quiet: bool = False) -> tuple[News, float] | None:
        """The news `text` seals, and when it was issued; None (said in the log) when it is
        not news sealed by this deployment."""
        if self.seals is None:
            why = "this replica has no shared secret (state.secret_file) to verify news with"
        else:
            try:
                purpose, opened = self.seals.open_one_of(("switch-news", "rebuild-news"), text)
            except SealError as error:
                why = str(error)
            else:
                news = read_news(opened.payload)
                if news is not None and purpose == _purpose(news):
                    return news, opened.issued
                why = "it is not news of a switch or a rebuild"
        if not quiet:
            logger.warning("ignored a message on %s: %s", self.channel, why)
        return None

    async def _apply(self, text: object) -> None:
        opened = self._open(text)
        if opened is None:
            return
        news, issued = opened
        if news.sender == self.instance or news.id == self._heard:
            return
        if issued <= self._newest:
            logger.warning(
                "ignored news on %s issued before the newest this replica applied (replayed, or "
                "from a replica whose clock is behind)",
                self.channel,
            )
            return
        self._heard, self._newest = news.id, issued
        if isinstance(news, RebuildNews):
            await self._apply_rebuild(news)
            return
        key, enabled = news.key, news.enabled
        if news.digest == self._digest():
            how: Rebuild = self._load  # the folder is shared: what they built is here
        else:
            try:
                await anyio.to_thread.run_sync(set_tool_enabled, self.config_dir, key, enabled)
            except (ToolkilnError, OSError) as error:
                logger.warning("the switch of %s on another replica does not apply here: %s", key, error)
                return
            how = self.rebuild
        logger.info("another replica %s %s; reloading", "enabled" if enabled else "disabled", key)
        await reload(self.service, how)

    async def _apply_rebuild(self, news: RebuildNews) -> None:
        """Load the tools.json announced, when it is this replica's; else say it differs."""
        mine = self._digest()
        if news.digest != mine:
            logger.warning(
                "%s elsewhere built a tools.json (sha256 %s) that is not this replica's %s "
                "(sha256 %s): this replica serves a different catalog than the one announced; "
                "share the config folder, or rebuild this replica's copy (toolkiln build)",
                _builder(news),
                news.digest[:12],
                self.service.registry.catalog_file,
                (mine or "unreadable")[:12],
            )
            return
        logger.info("tools.json was rebuilt by %s elsewhere; loading it", _builder(news))
        await reload(self.service, self._load)

    def _load(self) -> Registry | None:
        try:
            return Registry.load(self.service.registry.catalog_file)
        except ToolkilnError as error:
            logger.error("%s", error)
            return None

    def _digest(self) -> str | None:
        return digest_of(self.service.registry.catalog_file)


def _purpose(news: News) -> str:
    return "rebuild-news" if isinstance(news, RebuildNews) else "switch-news"


def _builder(news: RebuildNews) -> str:
    return "`toolkiln build`" if news.by == "build" else "serve --watch"
