"""The tools of one registry, listed and called the same way on every transport.

`ToolService` is the one place a call becomes an MCP result and an audit record; the
MCP handlers (stdio and Streamable HTTP) and the plain `/rpc` endpoint all go through
it. A tool that fails is an `isError` result the model can read; only an unknown tool
is a protocol error (-32602), as the spec asks.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import anyio
import mcp.types as types
from anyio.abc import TaskStatus
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.types import Scope

from toolkiln.audit import AuditLog
from toolkiln.model import CompiledTool
from toolkiln.runner import Registry, ToolResult, ToolRunner, UnknownToolError
from toolkiln.serve.caller import granted_scopes, principal_fields
from toolkiln.serve.calls.confirm import confirm, elicitation_mode
from toolkiln.serve.calls.parked import ParkedCalls
from toolkiln.serve.calls.progress import ThrottledNotifier
from toolkiln.serve.calls.record import CallRecord, client_name
from toolkiln.serve.calls.task_calls import TaskCalls
from toolkiln.serve.calls.waiting_call import RunningCall
from toolkiln.serve.catalog.list_changed import Broadcaster
from toolkiln.serve.catalog.resources import state_uris
from toolkiln.serve.catalog.search import CatalogSearch
from toolkiln.serve.readiness import Readiness
from toolkiln.serve.results import listed_tool, mcp_result
from toolkiln.serve.tasks.job_run import TaskCall
from toolkiln.serve.tasks.principal import principal_of
from toolkiln.serve.tasks.protocol import CreateTaskResult, may_create_task
from toolkiln.serve.tasks.service import TaskService
from toolkiln.serve.tool_list import CONFIRM

if TYPE_CHECKING:
    from toolkiln.state_secret import StateSecret
    from toolkiln.telemetry.setup import Telemetry

logger = logging.getLogger(__name__)
# The SDK's defaults of a `tools/list` result (cache hints, result type) in wire form.
MAX_TOOL_LISTS = 256  # tools/list results kept (one per scope set seen)
_EMPTY_TOOL_LIST = types.ListToolsResult(tools=[]).model_dump(by_alias=True, mode="json", exclude_none=True)

__all__ = ["ToolService", "client_name", "listed_tool", "mcp_result"]


class ToolService:
    """The tools of one registry, listed and called the same way on every transport."""

    def __init__(
        self,
        runner: ToolRunner,
        parked: ParkedCalls,
        tasks: TaskService,
        *,
        audit: AuditLog | None = None,
        secret: StateSecret | None = None,
        readiness: Readiness | None = None,
        telemetry: Telemetry | None = None,
    ) -> None:
        """Made by assemble.py, which chose `parked` and `tasks` for one server or a replica."""
        self.runner = runner
        self.telemetry = telemetry  # traces and metrics, when config/server.json turns them on
        self.registry = runner.registry
        self.audit = audit
        self.broadcaster = Broadcaster()
        # by (a `confirm` argument, the caller's OAuth scopes: None without OAuth)
        self._tool_lists: dict[tuple[bool, frozenset[str] | None], dict[str, Any]] = {}
        # Search mode for big catalogs: whether `tools/list` shows two tools instead of all.
        self.catalog_search = CatalogSearch()
        # What requestState keys are derived from (state.secret_file); none: this process's own.
        self.secret = secret
        self.reloading = anyio.Lock()  # one rebuild and swap at a time (watch.reload)
        self.readiness = readiness or Readiness()  # why it should get no new work now: GET /ready
        self.parked = parked  # interactive calls between rounds of questions
        self.tasks = tasks  # calls run as MCP tasks
        self.task_calls = TaskCalls(
            self.tasks, self.broadcaster, lambda: self.runner.settings.default_timeout
        )

    async def run_background(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """What runs beside the server: parked interactive calls and tasks. Cancelling it
        stops their processes (and marks the tasks that ran failed)."""
        async with anyio.create_task_group() as group:
            await group.start(self.parked.run)
            await group.start(self.tasks.run)
            task_status.started()

    def swap(self, registry: Registry) -> dict[str, bool]:
        """Serve `registry` from now on; which of tools, prompts and resources changed."""
        old, new = self.registry.catalog, registry.catalog
        changed = {
            kind: [item.model_dump() for item in getattr(old, kind)]
            != [item.model_dump() for item in getattr(new, kind)]
            for kind in ("tools", "prompts", "resources")
        }
        self.registry = self.runner.registry = registry
        self.runner.python_workers.retire_all()  # a rebuild may follow an edit of a module's neighbours
        self._tool_lists.clear()
        return changed

    def list_tools(
        self, ctx: ServerRequestContext[Any] | None = None, granted: frozenset[str] | None = None
    ) -> dict[str, Any]:
        """The `tools/list` result as this client sees it (with a `confirm` argument where it
        cannot be asked; with OAuth, only the tools its token's scopes let it call), in its
        wire form: built on the first request, then kept."""
        by_argument = elicitation_mode(ctx) == "none"
        if granted is None and ctx is not None and ctx.request is not None:
            granted = granted_scopes(ctx.request.scope)
        key = (by_argument, granted)
        if key not in self._tool_lists:
            if len(self._tool_lists) >= MAX_TOOL_LISTS:
                self._tool_lists.clear()
            tools = [
                listed_tool(tool, by_argument)
                for tool in self.registry.tools.values()
                if granted is None or granted.issuperset(tool.scopes)
            ]
            self._tool_lists[key] = {**_EMPTY_TOOL_LIST, "tools": tools}
        return self._tool_lists[key]

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        *,
        transport: str,
        ctx: ServerRequestContext[Any] | None = None,
        params: types.CallToolRequestParams | None = None,
        notifier: ThrottledNotifier | None = None,
        http_scope: Scope | None = None,
    ) -> types.CallToolResult | types.InputRequiredResult | CreateTaskResult:
        """The call's result; for a client that can follow a task and a tool that may run
        as one, a `CreateTaskResult` (the call goes on in the background)."""
        scope = ctx.request.scope if ctx is not None and ctx.request is not None else http_scope
        record = CallRecord(
            self.audit, self.registry.tools.get(name), name, arguments, transport, client_name(ctx)
        )
        record.fields |= principal_fields(scope)  # with OAuth: the token's subject and client
        try:
            tool = self.registry.get(name)
        except UnknownToolError as unknown:
            record(success=False, exit_code=None, error=str(unknown))
            raise MCPError(code=types.INVALID_PARAMS, message=str(unknown)) from None
        granted = granted_scopes(scope)
        if granted is not None and not granted.issuperset(tool.scopes):  # the gate refused it already
            missing = " ".join(sorted(set(tool.scopes) - granted))
            record(success=False, exit_code=None, error=f"insufficient scope: {missing}")
            raise MCPError(code=types.INVALID_REQUEST, message=f"{name} needs the OAuth scope {missing}")
        # A retry that brings a parked call's answers was confirmed when that call started:
        # its sealed state, bound to this tool and these arguments, was minted only then.
        resuming = params is not None and params.request_state not in (None, CONFIRM)
        if tool.requires_confirmation and not resuming:
            confirmation = await confirm(ctx, tool, params, arguments)
            if confirmation.ask is not None:
                return confirmation.ask
            if confirmation.refusal is not None:
                record(success=False, exit_code=None, error=confirmation.refusal)
                return mcp_result(ToolResult(text=confirmation.refusal, is_error=True))
            arguments = confirmation.arguments
        if tool.task_support != "forbidden" and may_create_task(ctx) and self.tasks.serving:
            if tool.interactive and tool.ask_before_task and ctx is not None:  # questions, then the task
                return await self._ask_then_task(tool, arguments, params, ctx, record)
            created = await self.task_calls.start(
                tool, self._runs(tool, arguments, record), principal_of(ctx), capabilities_of(ctx)
            )
            if created is not None:
                return created
        try:
            if tool.interactive and ctx is not None and ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
                outcome = await self._run_parked(tool, arguments, params, ctx, record)
                if isinstance(outcome, types.InputRequiredResult):
                    return outcome  # the script waits for the client's answers
                assert isinstance(outcome, ToolResult)  # no window: never a RunningCall, never a task
                result = outcome
            else:
                result = await self._run(name, arguments, notifier, record.prepare)
        except anyio.get_cancelled_exc_class():  # the client went away, or the server is stopping
            record(success=False, exit_code=None, error="cancelled")
            raise
        failure = (
            result.text if result.is_error and result.text else None
        )  # whole (cut and redacted by the audit)
        record(success=not result.is_error, exit_code=result.exit_code, error=failure)
        if tool.state:  # a call may have changed it: tell the subscribers
            for uri in state_uris(tool):
                await self.broadcaster.resource_updated(uri)
        return mcp_result(result)

    async def _ask_then_task(
        self,
        tool: CompiledTool,
        arguments: Mapping[str, Any] | None,
        params: types.CallToolRequestParams | None,
        ctx: ServerRequestContext[Any],
        record: CallRecord,
    ) -> types.CallToolResult | types.InputRequiredResult | CreateTaskResult:
        """An interactive tool called by a client that follows tasks: what the script asks
        within `ask_window_seconds` (of starting, or of its latest answers) comes back
        as input-required rounds; once it works on without asking, or ends, the call
        goes on as a task (SEP-2663 with SEP-2322: no task before the questions)."""
        window = self.registry.catalog.tasks.ask_window_seconds
        outcome = await self._run_parked(tool, arguments, params, ctx, record, window)
        if isinstance(outcome, types.InputRequiredResult | CreateTaskResult):
            return outcome  # questions; or a task, made by the replica the call runs on
        went_on = await self.task_calls.go_on(tool, outcome, principal_of(ctx), capabilities_of(ctx), record)
        return went_on if isinstance(went_on, CreateTaskResult) else mcp_result(went_on)

    def _runs(self, tool: CompiledTool, arguments: Mapping[str, Any] | None, record: CallRecord) -> TaskCall:
        """A task's call of `tool`, audited as it ends."""

        async def run(observer: Any) -> ToolResult:
            call = self.runner.call(tool.name, arguments, observer, record.prepare)
            return await self._guarded(tool.name, call)

        return self.task_calls.followed(tool, run, record)

    async def _run(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        notifier: ThrottledNotifier | None,
        on_started: Callable[[], None],
    ) -> ToolResult:
        if notifier is None:
            return await self._guarded(name, self.runner.call(name, arguments, on_started=on_started))
        try:
            result = await self._guarded(name, self.runner.call(name, arguments, notifier, on_started))
        finally:
            await notifier.stop_forwarding()
        await notifier.flush()  # what is left goes out before the result
        return result

    async def _run_parked(
        self,
        tool: CompiledTool,
        arguments: Mapping[str, Any] | None,
        params: types.CallToolRequestParams | None,
        ctx: ServerRequestContext[Any],
        record: CallRecord,
        window: float | None = None,
    ) -> ToolResult | types.InputRequiredResult | RunningCall | CreateTaskResult:
        """An interactive call of a 2026-07-28 client: started, or resumed with its
        answers (here, or on the replica it runs on: forwarding.py)."""
        capabilities = capabilities_of(ctx)
        state = params.request_state if params is not None else None
        if state is not None and state != CONFIRM:  # a parked call's (confirm(): the confirmation's)
            responses = params.input_responses if params is not None else None
            return await self.parked.resume_call(state, responses, ctx, record, window)
        return await self.parked.start(
            lambda observer: self._guarded(tool.name, self.runner.call(tool.name, arguments, observer)),
            capabilities,
            params.input_responses if params is not None else None,
            window,
        )

    @staticmethod
    async def _guarded(name: str, call: Awaitable[ToolResult]) -> ToolResult:
        """Never let an exception escape into the SDK: it would become an anonymous -32603."""
        try:
            return await call
        except anyio.get_cancelled_exc_class():
            raise
        except Exception:
            logger.exception("tool %r failed inside toolkiln", name)
            return ToolResult(
                text=f"Tool {name!r} failed inside toolkiln; see the server log.", is_error=True
            )


def capabilities_of(ctx: ServerRequestContext[Any] | None) -> types.ClientCapabilities | None:
    return ctx.session.client_capabilities if ctx is not None else None
