"""Parked calls of a replica: a retry that brings the answers of a call parked on
another replica is forwarded there, through Redis (replicas/relayed_calls.py).

Chosen once, when the server is made with a state URL and a shared secret
(replicas/replication.py); a single server's `ParkedCalls` (parked.py) never forwards.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mcp.types as types
from mcp.server.context import ServerRequestContext

from toolkiln.runner import ToolResult
from toolkiln.serve.calls.parked import ParkedCalls
from toolkiln.serve.calls.record import CallRecord
from toolkiln.serve.calls.waiting_call import RunningCall
from toolkiln.serve.replicas.relayed_calls import RelayedCalls
from toolkiln.serve.tasks.protocol import CreateTaskResult


class ForwardingParkedCalls(ParkedCalls):
    """`ParkedCalls` whose retries reach the replica that runs their script."""

    def __init__(
        self,
        max_waiting: int,
        instance: str,
        relayed: RelayedCalls,
        answer_timeout: Callable[[], float] = lambda: 300.0,
    ) -> None:
        super().__init__(max_waiting, instance, answer_timeout)
        self.relayed = relayed

    async def resume_call(
        self,
        state: str,
        responses: dict[str, Any] | None,
        ctx: ServerRequestContext[Any],
        record: CallRecord,
        window: float | None = None,
    ) -> ToolResult | types.InputRequiredResult | RunningCall | CreateTaskResult:
        if self.relayed.runs_elsewhere(state):
            return await self.relayed.resume(state, responses, ctx, record, window)
        return await super().resume_call(state, responses, ctx, record, window)
