"""Telling the replicas that config/tools.json was rebuilt (`toolkiln build`, `serve --watch`).

The news (replicas/news.py: the digest of the new tools.json, who built it) goes where the
dashboard's switches go: published on `<prefix>catalog`, and kept in `<prefix>catalog:last`
for a replica that was not listening then. Each replica that hears it reloads its
tools.json when that is the one announced (a shared config folder), and warns when it
is not (serve/replicas/catalog_sync.py). The news is sealed with the shared secret
(sealed_messages.py); without one the replicas are not told, as they would not believe
it. Synchronous, and `redis` is imported only here and only when there is a URL:
`toolkiln build` loads it just to tell.

News a serving replica could not tell (Redis away: a `--watch` rebuild, a dashboard
switch) is kept in its `UntoldNews`; replicas/catalog_sync.py tells it once Redis is back, unless
newer news was told meanwhile, so the replicas converge on the last change made.
"""

from __future__ import annotations

import secrets
import threading
import time
from pathlib import Path

from toolkiln.model import StateSettings
from toolkiln.model.state import redact_url
from toolkiln.serve.replicas.news import Builder, digest_of, dump_news, rebuild_news
from toolkiln.serve.sealed_messages import Seals

CONNECT_SECONDS = 2.0


class UntoldNews:
    """The newest news this server could not tell (sealed), and when it was issued."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: tuple[str, float] | None = None

    def keep(self, text: str, issued: float) -> None:
        with self._lock:
            if self._kept is None or issued >= self._kept[1]:
                self._kept = (text, issued)

    def take(self) -> tuple[str, float] | None:
        """The news kept (it is forgotten: whoever takes it tells it, or keeps it again)."""
        with self._lock:
            kept, self._kept = self._kept, None
            return kept


def announce_rebuild(
    state: StateSettings,
    catalog_file: Path,
    by: Builder,
    seals: Seals | None,
    sender: str | None = None,
    untold: UntoldNews | None = None,
) -> str | None:
    """Publish the rebuild of `catalog_file`, sealed with `seals`; None once told, else why
    the replicas were not told, in words for a user. `state.url` must be set. A serving
    replica's news that Redis did not take is kept in `untold`, to tell when it is back."""
    assert state.url is not None
    if seals is None:
        return (
            "the replicas were not told: they believe news of a rebuild only when it is sealed with "
            "their shared secret; give state.secret_file (or TOOLKILN_STATE_SECRET_FILE)"
        )
    import redis
    import redis.exceptions

    where = redact_url(state.url)
    digest = digest_of(catalog_file)
    if digest is None:
        return f"the replicas were not told: {catalog_file} cannot be read"
    issued = time.time()
    news = rebuild_news(sender or secrets.token_hex(12), by, digest)
    text = seals.seal("rebuild-news", dump_news(news), now=issued)
    client = redis.Redis.from_url(
        state.url, socket_connect_timeout=CONNECT_SECONDS, socket_timeout=CONNECT_SECONDS
    )
    try:
        with client.pipeline(transaction=True) as pipe:
            pipe.set(f"{state.key_prefix}catalog:last", text)
            pipe.publish(f"{state.key_prefix}catalog", text)
            pipe.execute()
    except redis.exceptions.AuthenticationError:
        return f"the replicas were not told: Redis at {where} refused the password"
    except (redis.exceptions.RedisError, OSError) as error:
        if untold is not None:
            untold.keep(text, issued)
            return (
                f"the replicas were not told yet: Redis at {where} cannot be reached "
                f"({type(error).__name__}); they are told when it is back"
            )
        return (
            f"the replicas were not told: Redis at {where} cannot be reached ({type(error).__name__}); "
            "they serve the previous tools until a later rebuild reaches them or they restart"
        )
    finally:
        client.close()
    return None
