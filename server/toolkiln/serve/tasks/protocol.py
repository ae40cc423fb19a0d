"""The tasks extension on the wire (SEP-2663, `io.modelcontextprotocol/tasks`).

`TasksExtension` is an `mcp.server.extension.Extension`: the SDK's shape for an
opt-in extension (its methods and a `tools/call` interceptor), applied to the
low-level server by `apply_extension`. It serves `tasks/get`, `tasks/update` and
`tasks/cancel` to clients that declare the extension on the request, and refuses a
call of a tool that can only run as a task (`"task": "required"`) from one that does
not (-32021). The task itself is made in `ToolService.call_tool`, after a
confirmation the tool may need, so that a 2026-07-28 client answers that first
(an input-required round) and gets the task after.

Over HTTP, `Mcp-Name` must carry the request's `taskId` (the spec's routing header),
checked like the SDK checks it for `tools/call`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import mcp.types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding, compose_tool_call_handler
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

from toolkiln.serve.tasks.principal import principal_of
from toolkiln.serve.tasks.service import TaskNotFoundError, TaskService
from toolkiln.serve.tasks.store import TaskRecord

EXTENSION_ID = "io.modelcontextprotocol/tasks"
_REQUIRED: dict[str, Any] = {"requiredCapabilities": {"extensions": {EXTENSION_ID: {}}}}


class CreateTaskResult(types.Result):
    """The answer to a call that goes on as a task: the task, flat (`Result & Task`)."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    created_at: str
    last_updated_at: str
    ttl_ms: int
    poll_interval_ms: int
    status_message: str | None = None


class TaskParams(types.RequestParams):
    task_id: str = Field(alias="taskId")


class UpdateTaskParams(TaskParams):
    input_responses: dict[str, Any] = Field(alias="inputResponses")


def declares_tasks(ctx: ServerRequestContext[Any] | None) -> bool:
    """Whether this request's client declared the tasks extension."""
    if ctx is None:
        return False
    capabilities = ctx.session.client_capabilities
    return bool(capabilities and capabilities.extensions and EXTENSION_ID in capabilities.extensions)


def may_create_task(ctx: ServerRequestContext[Any] | None) -> bool:
    """A task may answer this call: a 2026-07-28 request that declares the extension
    (its capabilities are per request, as the spec needs them)."""
    return ctx is not None and ctx.protocol_version in MODERN_PROTOCOL_VERSIONS and declares_tasks(ctx)


def missing_extension(what: str) -> MCPError:
    return MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=f"{what} needs the client to declare the {EXTENSION_ID} extension on the request.",
        data=_REQUIRED,
    )


def create_task_result(record: TaskRecord) -> CreateTaskResult:
    return CreateTaskResult.model_validate(_task(record))


def detailed_task(record: TaskRecord) -> dict[str, Any]:
    """`tasks/get`'s `DetailedTask`: the task and what its status carries."""
    detailed = {"resultType": "complete", **_task(record)}
    if record.status == "input_required":
        detailed["inputRequests"] = record.input_requests or {}
    elif record.status == "completed":
        detailed["result"] = record.result or {"content": []}
    elif record.status == "failed":
        detailed["error"] = record.error or {"code": types.INTERNAL_ERROR, "message": "The task failed."}
    # toolkiln's own: the latest progress and log lines of the script (the spec sends
    # no progress or log notifications for tasks).
    meta: dict[str, Any] = {}
    if record.progress is not None:
        meta["toolkiln/progress"] = record.progress
    if record.logs:
        meta["toolkiln/logs"] = record.logs
    if meta:
        detailed["_meta"] = meta
    return detailed


def _task(record: TaskRecord) -> dict[str, Any]:
    task: dict[str, Any] = {
        "taskId": record.task_id,
        "status": record.status,
        "createdAt": _iso(record.created_at),
        "lastUpdatedAt": _iso(record.updated_at),
        "ttlMs": record.ttl_ms,
        "pollIntervalMs": record.poll_interval_ms,
    }
    if record.status_message:
        task["statusMessage"] = record.status_message
    return task


def _iso(seconds: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TasksExtension(Extension):
    identifier = EXTENSION_ID

    def __init__(self, tasks: TaskService, task_support: Any) -> None:
        self.tasks = tasks
        self.task_support = task_support  # tool name -> its task support (None: unknown tool)

    def methods(self) -> Sequence[MethodBinding]:
        return (
            MethodBinding("tasks/get", TaskParams, self._get),
            MethodBinding("tasks/update", UpdateTaskParams, self._update),
            MethodBinding("tasks/cancel", TaskParams, self._cancel),
        )

    async def intercept_tool_call(
        self, params: types.CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if self.task_support(params.name) == "required" and not may_create_task(ctx):
            raise missing_extension(f"Tool {params.name!r} runs only as a task: it")
        return await call_next(ctx)

    async def _get(self, ctx: ServerRequestContext[Any], params: TaskParams) -> dict[str, Any]:
        record = await self._found(ctx, params, "tasks/get")
        return detailed_task(record)

    async def _update(self, ctx: ServerRequestContext[Any], params: UpdateTaskParams) -> dict[str, Any]:
        self._check(ctx, params, "tasks/update")
        try:
            await self.tasks.answer(params.task_id, principal_of(ctx), params.input_responses)
        except TaskNotFoundError:
            raise _not_found(params.task_id) from None
        return {"resultType": "complete"}

    async def _cancel(self, ctx: ServerRequestContext[Any], params: TaskParams) -> dict[str, Any]:
        self._check(ctx, params, "tasks/cancel")
        try:
            await self.tasks.cancel(params.task_id, principal_of(ctx))
        except TaskNotFoundError:
            raise _not_found(params.task_id) from None
        return {"resultType": "complete"}

    async def _found(self, ctx: ServerRequestContext[Any], params: TaskParams, method: str) -> TaskRecord:
        self._check(ctx, params, method)
        try:
            return await self.tasks.get(params.task_id, principal_of(ctx))
        except TaskNotFoundError:
            raise _not_found(params.task_id) from None

    def _check(self, ctx: ServerRequestContext[Any], params: TaskParams, method: str) -> None:
        if not declares_tasks(ctx):
            raise missing_extension(method)
        request = ctx.request if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS else None
        if request is not None and request.headers.get("mcp-name", "").strip() != params.task_id:
            raise MCPError(
                code=HEADER_MISMATCH,
                message="The Mcp-Name header must be the request's taskId (SEP-2663 routing headers).",
            )
        if not self.tasks.serving:
            raise MCPError(code=types.INTERNAL_ERROR, message="Tasks are not being served.")


def _not_found(task_id: str) -> MCPError:
    return MCPError(
        code=types.INVALID_PARAMS,
        message="No such task: it never existed, has expired, or belongs to another client.",
    )


def apply_extension(server: Server[Any], extension: Extension, on_call_tool: Any) -> None:
    """What `MCPServer(extensions=[...])` does, for the low-level server: advertise the
    extension, bind its methods and wrap `tools/call` in its interceptor."""
    server.extensions[extension.identifier] = extension.settings()
    for method in extension.methods():
        server.add_request_handler(method.method, method.params_type, method.handler)
    server.add_request_handler(
        "tools/call", types.CallToolRequestParams, compose_tool_call_handler([extension], on_call_tool)
    )
