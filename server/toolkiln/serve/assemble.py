"""A server made once, its parts chosen as it is made: a single server's, or, with a
state URL, a replica's (replicas/replication.py, imported only then, with `redis`).

A single server parks interactive calls in this process (parked.py) and keeps tasks in
the SQLite file of its state folder (tasks/jobs.py). A replica forwards a retry whose
call is parked on another replica (forwarding.py), keeps tasks in the shared Redis
(tasks/shared.py, with a heartbeat), and has a `Replication`: what it shares with the
others (the settings, seals, relay, streams and news of the state URL). `ToolService`
is the same either way and knows nothing of replicas; nothing is wired in later.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.model import StateSettings, TaskSettings
from toolkiln.runner import ToolRunner
from toolkiln.serve.calls.parked import ParkedCalls
from toolkiln.serve.readiness import Readiness
from toolkiln.serve.service import ToolService
from toolkiln.serve.tasks.owners import new_instance, this_owner
from toolkiln.serve.tasks.service import TaskService
from toolkiln.state_dir import default_state_dir
from toolkiln.state_secret import load_state_secret

if TYPE_CHECKING:
    from toolkiln.audit import AuditLog
    from toolkiln.serve.replicas.replication import Replication
    from toolkiln.telemetry.setup import Telemetry


@dataclass(frozen=True)
class Served:
    """What a transport serves: the service, and with a state URL its replication."""

    service: ToolService
    replication: Replication | None = None


def assemble(
    runner: ToolRunner,
    audit: AuditLog | None = None,
    *,
    state_dir: Path | None = None,
    state: StateSettings | None = None,
    telemetry: Telemetry | None = None,
) -> Served:
    """The service of `runner`'s registry, for one server, or for a replica of `state.url`."""
    state = state or StateSettings()
    state_dir = state_dir or default_state_dir()
    # What requestState keys are derived from, shared by replicas; none: this process's own.
    secret = load_state_secret(Path(state.secret_file)) if state.secret_file else None
    instance = new_instance()  # this server's one name among replicas (tasks/owners.py)
    if audit is not None:  # its records name this server by instance, as its tasks do
        audit.server = {**audit.server, "instance": instance}
    instruments = telemetry.instruments if telemetry is not None else None
    on_status = instruments.task_status if instruments is not None else None
    max_waiting = max(1, runner.settings.max_concurrency // 2)  # parked calls at once

    def answer_timeout() -> float:
        return runner.registry.catalog.interactive.answer_timeout_seconds

    def task_settings() -> TaskSettings:
        return runner.registry.catalog.tasks

    owner = this_owner(instance)
    if state.url is None:
        parked = ParkedCalls(max_waiting, instance, answer_timeout)
        tasks = TaskService(state_dir, task_settings, owner, answer_timeout, on_status)
        service = ToolService(runner, parked, tasks, audit=audit, secret=secret, telemetry=telemetry)
        return Served(service)
    from toolkiln.serve.replicas.replication import Replication

    replication = Replication(state, instance, secret)
    readiness = Readiness()  # the heartbeat says when the shared store cannot be reached
    parked = replication.parked_calls(max_waiting, answer_timeout)
    tasks = replication.task_service(state_dir, task_settings, owner, readiness, answer_timeout, on_status)
    service = ToolService(
        runner, parked, tasks, audit=audit, secret=secret, readiness=readiness, telemetry=telemetry
    )
    return Served(service, replication)
