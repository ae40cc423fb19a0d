"""Which task store a server uses: the one setting (`state.url`) decides.

No URL: the embedded SQLite file under the state folder (one machine, nothing to
install). A Redis URL: that server, shared by every replica pointed at it. `redis`
is imported only then, so a plain server never loads it. The choice sits here, beside
store.py (what a store keeps and offers), not in it: both stores import store.py.
"""

from __future__ import annotations

from pathlib import Path

from toolkiln.model import StateSettings, TaskSettings
from toolkiln.model.state import redact_url
from toolkiln.serve.sealed_messages import Seals
from toolkiln.serve.tasks.store import STORE_FILE, TaskStore


def open_task_store(
    state_dir: Path, limits: TaskSettings, state: StateSettings, seals: Seals | None = None
) -> TaskStore:
    """The store `state` names, opened (a Redis server is not reached before its first use);
    `seals`: its heartbeats are sealed (with the shared secret)."""
    if state.url is not None:
        from toolkiln.serve.tasks.redis_store import RedisTaskStore

        return RedisTaskStore(
            state.url,
            prefix=state.key_prefix,
            max_tasks=limits.max_tasks,
            max_bytes=limits.max_bytes,
            seals=seals,
        )
    from toolkiln.serve.tasks.sqlite import SqliteTaskStore

    return SqliteTaskStore(state_dir / STORE_FILE, max_tasks=limits.max_tasks, max_bytes=limits.max_bytes)


def describe_store(state_dir: Path, state: StateSettings) -> str:
    """Where tasks are kept, fit to print (a password redacted)."""
    if state.url is not None:
        return f"Redis at {redact_url(state.url)} (keys {state.key_prefix}*)"
    return str(state_dir / STORE_FILE)
