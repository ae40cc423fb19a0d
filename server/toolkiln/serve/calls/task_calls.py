"""Calls that run as tasks (SEP-2663): started in the task service, audited as they
end, and an interactive call handed to a task once it is past its questions (parked.py:
`RunningCall`), on the replica that runs it (replicas/relayed_calls.py calls `go_on` there too)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio
import mcp.types as types
from mcp.shared.exceptions import MCPError

from toolkiln.model import CompiledTool
from toolkiln.runner import LoggingObserver, ToolResult
from toolkiln.serve.calls.record import CallRecord
from toolkiln.serve.calls.waiting_call import RunningCall
from toolkiln.serve.catalog.list_changed import Broadcaster
from toolkiln.serve.catalog.resources import state_uris
from toolkiln.serve.results import mcp_result
from toolkiln.serve.tasks.job_run import TaskCall
from toolkiln.serve.tasks.protocol import CreateTaskResult, create_task_result
from toolkiln.serve.tasks.service import TaskService
from toolkiln.serve.tasks.store import TaskStoreError

logger = logging.getLogger(__name__)


class TaskCalls:
    """Tool calls started as tasks of `tasks`."""

    def __init__(
        self, tasks: TaskService, broadcaster: Broadcaster, default_timeout: Callable[[], float]
    ) -> None:
        self.tasks = tasks
        self.broadcaster = broadcaster
        self.default_timeout = default_timeout

    async def go_on(
        self,
        tool: CompiledTool,
        outcome: ToolResult | RunningCall,
        principal: str,
        capabilities: types.ClientCapabilities | None,
        record: CallRecord,
    ) -> CreateTaskResult | ToolResult:
        """A call past its questions goes on as a task (`RunningCall`), or its result is
        one; the call's result instead when no task can start (the store is full)."""
        if isinstance(outcome, RunningCall):
            follow: TaskCall = outcome.follow
        else:
            ended = outcome

            async def follow(observer: Any) -> ToolResult:
                return ended

        created = await self.start(tool, self.followed(tool, follow, record), principal, capabilities)
        if created is not None:
            return created
        return await follow(LoggingObserver())  # the store is full: the call answers itself

    def followed(self, tool: CompiledTool, run: TaskCall, record: CallRecord) -> TaskCall:
        """`run` with the audit record and the state subscribers told when it ends."""

        async def call(observer: Any) -> ToolResult:
            try:
                result = await run(observer)
            except anyio.get_cancelled_exc_class():
                record(success=False, exit_code=None, error="cancelled")
                raise
            failure = result.text.splitlines()[0] if result.is_error and result.text else None
            record(success=not result.is_error, exit_code=result.exit_code, error=failure)
            if tool.state:
                for uri in state_uris(tool):
                    await self.broadcaster.resource_updated(uri)
            return result

        return call

    async def start(
        self,
        tool: CompiledTool,
        call: TaskCall,
        principal: str,
        capabilities: types.ClientCapabilities | None,
    ) -> CreateTaskResult | None:
        """Start `call` as a task: its `CreateTaskResult`, or None to run it as a plain
        call (the store is full and the tool may run either way)."""

        def wire(result: ToolResult) -> dict[str, Any]:
            return mcp_result(result).model_dump(by_alias=True, mode="json", exclude_none=True)

        timeout = tool.timeout_seconds or self.default_timeout()
        try:
            task = await self.tasks.start(tool, call, wire, principal, capabilities, timeout)
        except TaskStoreError as full:  # at its bounds, or (a shared store) unreachable
            if tool.task_support == "required":
                raise MCPError(code=types.INTERNAL_ERROR, message=f"No task can start now: {full}.") from None
            logger.warning("running %r as a plain call: %s", tool.name, full)
            return None
        return create_task_result(task)
