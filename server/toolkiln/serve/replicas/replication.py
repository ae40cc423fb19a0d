"""What a replica shares with the others of its state URL (`state.url`, Redis): made
once with the server (assemble.py), and only then: `redis` is imported here.

`Replication` holds the state settings, this server's instance name among the
replicas, the seals of the shared secret (`state.secret_file`; none without one, and
then nothing replicas tell each other is sealed, told or believed), and the relay of
answers (replicas/relayed_calls.py). It makes the replica's parts of the server (parked calls that
forward, tasks in Redis) and what the transports add: the shared resumable streams
(replicas/event_store.py), the dashboard's and rebuilds' news (replicas/catalog_sync.py), the news
of a `--watch` rebuild (replicas/announce.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskStatus

from toolkiln.model import StateSettings, TaskSettings
from toolkiln.serve.calls.parked import ParkedCalls
from toolkiln.serve.readiness import Readiness
from toolkiln.serve.replicas.announce import UntoldNews
from toolkiln.serve.replicas.forwarding import ForwardingParkedCalls
from toolkiln.serve.replicas.mailbox import Relay
from toolkiln.serve.replicas.relayed_calls import RelayedCalls, Replica
from toolkiln.serve.replicas.shared_tasks import SharedTaskService
from toolkiln.serve.sealed_messages import Seals
from toolkiln.serve.tasks.stores import open_task_store
from toolkiln.state_secret import StateSecret

if TYPE_CHECKING:
    from toolkiln.serve.catalog.watch import Rebuild
    from toolkiln.serve.replicas.catalog_sync import CatalogNews
    from toolkiln.serve.replicas.event_store import SharedEvents
    from toolkiln.serve.service import ToolService


class Replication:
    """This replica's share of the state URL: settings, name, seals and relay."""

    def __init__(self, state: StateSettings, instance: str, secret: StateSecret | None) -> None:
        assert state.url is not None
        self.state = state
        self.url = state.url
        self.instance = instance  # the server's one name (tasks/owners.py)
        # What replicas tell each other through Redis is sealed with it (sealed_messages.py).
        self.seals = Seals(secret.secrets, state.key_prefix) if secret is not None else None
        # A client's answers that reach this replica for a call another one runs go there.
        self.relayed: RelayedCalls | None = None
        if self.seals is not None:
            relay = Relay(self.url, prefix=state.key_prefix, instance=instance, seals=self.seals)
            self.relayed = RelayedCalls(relay)
        self.untold = UntoldNews()  # switches and rebuilds Redis did not take (replicas/catalog_sync.py)

    @property
    def forwards(self) -> bool:
        """Whether answers for a call parked here may still come, through another replica."""
        return self.relayed is not None

    def parked_calls(self, max_waiting: int, answer_timeout: Callable[[], float]) -> ParkedCalls:
        """Parked calls whose retries reach the replica running them (with a shared secret)."""
        if self.relayed is None:
            return ParkedCalls(max_waiting, self.instance, answer_timeout)
        return ForwardingParkedCalls(max_waiting, self.instance, self.relayed, answer_timeout)

    def task_service(
        self,
        state_dir: Path,
        settings: Callable[[], TaskSettings],
        owner: dict[str, Any],
        readiness: Readiness,
        answer_timeout: Callable[[], float],
        on_status: Callable[[str], None] | None,
    ) -> SharedTaskService:
        """Tasks in the shared store, with this server's heartbeat in it."""
        return SharedTaskService(
            state_dir,
            settings,
            owner,
            make_store=lambda limits: open_task_store(state_dir, limits, self.state, self.seals),
            readiness=readiness,
            relayer=self.relayed,
            answer_timeout=answer_timeout,
            on_status=on_status,
        )

    async def run(
        self, service: Replica, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """What runs beside the server: the answers other replicas relay to it."""
        if self.relayed is None:
            task_status.started()
            return
        await self.relayed.serve(service, task_status=task_status)

    def resuming(self, app: Any, shared: SharedEvents) -> Any:
        """`app` (the SDK's `/mcp`), where a GET with the `Last-Event-ID` of a shared
        stream resumes it from Redis (replicas/resume.py)."""
        from toolkiln.serve.replicas.resume import ResumingApp

        return ResumingApp(app, shared)

    def shared_events(self) -> SharedEvents:
        """The Redis event store: a client resumes a stream on any replica."""
        from toolkiln.serve.replicas.event_store import SharedEvents

        return SharedEvents(self.url, prefix=self.state.key_prefix, instance=self.instance, seals=self.seals)

    def catalog_news(
        self, service: ToolService, config_dir: Path, rebuild: Rebuild | None
    ) -> CatalogNews | None:
        """The dashboard's switches and the rebuilds, told to and heard from the other
        replicas; None when this server's switches cannot rebuild."""
        if rebuild is None:
            return None
        from toolkiln.serve.replicas.catalog_sync import CatalogNews

        return CatalogNews(
            self.url,
            prefix=self.state.key_prefix,
            instance=self.instance,
            seals=self.seals,
            untold=self.untold,
            service=service,
            config_dir=config_dir,
            rebuild=rebuild,
        )
