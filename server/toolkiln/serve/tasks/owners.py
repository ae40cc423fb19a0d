"""Which server runs a task, its heartbeat in a shared store, and the tasks of a server
that stopped.

Every task's record names its owner: the server process (pid, start time, boot id:
liveness.py), its host, and `instance`, a name of its own for this run of the server.
The instance is the server's one name everywhere replicas meet: in its heartbeat
(`<prefix>owner:<instance>` in Redis, renewed every BEAT_SECONDS, gone OWNER_SECONDS
after the server stops), in the `requestState` of its parked calls (serve/calls/parked.py),
in the events it keeps (serve/replicas/event_store.py) and in the list where other replicas
relay it a client's answers (serve/replicas/mailbox.py).

A task left `working` by a server known to be gone (it crashed or was killed: the
store says, from the process table on one machine, from the heartbeat in a shared
store) is marked failed with the reason (`settle_orphan`), never left working. A shared
store knows a server gone only when its heartbeat is missing although the store has
been reachable, from this replica and without a break, for longer than a heartbeat
lasts (`TaskStore.owner_gone`): while Redis is away, and for a lease after it returns,
no task is failed, as its server may well be running it (and write its result when the
store is back: tasks/service.py).

While this server cannot beat, the shared store is unreachable from here: readiness.py
says so (`task-store`) until a beat gets through.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import time
from collections.abc import Callable, Container
from typing import Any

import anyio
import mcp.types as types

from toolkiln.liveness import process_identity
from toolkiln.serve.readiness import STORE_UNREACHABLE, Readiness
from toolkiln.serve.sealed_messages import HEARTBEAT_SECONDS
from toolkiln.serve.tasks.store import TaskRecord, TaskStore, TaskStoreError

logger = logging.getLogger(__name__)

# A server beats this often in a shared store; one silent for OWNER_SECONDS is gone.
BEAT_SECONDS = 2.0
OWNER_SECONDS = HEARTBEAT_SECONDS  # how long a sealed heartbeat is good for, too
DIED = (
    "The task did not finish: {why}. Its result, if it had one, never reached the task store; start it again."
)


def new_instance() -> str:
    """A name for this run of the server: 96 random bits in hex."""
    return secrets.token_hex(12)


def this_owner(instance: str) -> dict[str, Any]:
    """The owner a task of this server names: its process, host and instance."""
    return {**process_identity(os.getpid()), "host": socket.gethostname(), "instance": instance}


class Heartbeat:
    """This server's heartbeat in a shared store: others see it running (and so its
    tasks, and the calls parked in it) while it beats."""

    def __init__(
        self, owner: dict[str, Any], open_store: Callable[[], TaskStore], readiness: Readiness | None = None
    ) -> None:
        self.owner = owner
        self.open_store = open_store
        self.readiness = readiness or Readiness()
        self._beaten_at = -OWNER_SECONDS  # time.monotonic() of the last heartbeat stored

    @property
    def stale(self) -> bool:
        """Whether the last heartbeat stored is older than BEAT_SECONDS."""
        return time.monotonic() - self._beaten_at > BEAT_SECONDS

    async def beat(self) -> None:
        """Say in the shared store that this server runs; `TaskStoreError` if it cannot."""
        try:
            store = await anyio.to_thread.run_sync(self.open_store)
            await anyio.to_thread.run_sync(store.beat, self.owner, OWNER_SECONDS)
        except TaskStoreError:
            self.readiness.hold("task-store", STORE_UNREACHABLE)
            raise
        self._beaten_at = time.monotonic()
        self.readiness.release("task-store")

    async def beat_while_running(self) -> None:
        while True:
            try:
                await self.beat()
            except TaskStoreError as error:
                logger.warning("no heartbeat in the task store: %s", error)
            await anyio.sleep(BEAT_SECONDS)


def settle_orphan(store: TaskStore, record: TaskRecord, running_here: Container[str]) -> TaskRecord | None:
    """The task, failed, when it is left unfinished by a server known to be gone; None
    when it has ended, or its server runs it or may (the store cannot tell yet).
    Blocking: run it in a thread."""
    if record.terminal or record.task_id in running_here:
        return None
    why = store.owner_gone(record.owner)
    if why is None:
        return None
    message = DIED.format(why=why)
    error = {"code": types.INTERNAL_ERROR, "message": message}
    updated = store.update(record.task_id, status="failed", error=error, status_message=message)
    return updated or record


def fail_orphans(store: TaskStore, running_here: Container[str]) -> int:
    """Fail every unfinished task of a server that stopped; how many. Blocking."""
    return sum(settle_orphan(store, task, running_here) is not None for task in store.list(active_only=True))
