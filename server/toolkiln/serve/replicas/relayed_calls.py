"""A client's answers for a call that runs on another replica go on there (with Redis).

A 2026-07-28 interactive call parks its script on the replica that started it (A),
and its `requestState` names A's instance (parked.py). When the retry that brings the
answers reaches replica B, B has already opened and checked the state (calls/request_state.py: sealed
with the shared secret, bound to this tool, these arguments and this principal), and
relays the answers to A (replicas/mailbox.py); A resumes the call and B answers the client with
A's outcome:

- the result (B writes the audit record, as for a call of its own);
- the next questions, whose new `requestState` names A again: the next retry is
  relayed again, whichever replica it reaches;
- for a client that follows tasks, once the call works on past its questions: the
  task, which A makes (A runs the script) in the shared store, so `tasks/get` works
  on any replica; A writes the audit record when the task ends;
- an error (the call is no longer waiting, timed out, lacks a capability), as A gave it.

Likewise a `tasks/update` for a task in `input_required` whose script runs on A:
A checks the principal again against the store, and hands the answers to its script.
A message carries only the answers, the client's capabilities, its principal (a hash
of the token), and the tool's name and arguments (for A's audit record): never a
command, a path or a key of Redis (docs/security.md).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING, Any, Protocol

import mcp.types as types
from anyio.abc import TaskStatus
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolkiln.runner import ToolResult, UnknownToolError
from toolkiln.serve.calls.record import CallRecord
from toolkiln.serve.calls.waiting_call import RunningCall
from toolkiln.serve.replicas.mailbox import INSTANCE, Kind, Relay, RelayError
from toolkiln.serve.tasks.principal import principal_of
from toolkiln.serve.tasks.protocol import CreateTaskResult
from toolkiln.serve.tasks.service import TaskNotFoundError
from toolkiln.serve.tasks.store import TaskRecord

if TYPE_CHECKING:
    from toolkiln.audit import AuditLog
    from toolkiln.runner import Registry
    from toolkiln.serve.calls.parked import ParkedCalls
    from toolkiln.serve.calls.task_calls import TaskCalls
    from toolkiln.serve.tasks.service import TaskService


class Replica(Protocol):
    """What the answers relayed here use of the server they reach (service.py's
    ToolService, which never imports this module: the dependency goes one way)."""

    registry: Registry
    audit: AuditLog | None
    tasks: TaskService
    parked: ParkedCalls
    task_calls: TaskCalls


MAX_STATE = 200  # a parked call's state: `<instance>.<token>`, some 50 characters
MAX_NAME = 200


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ResumeBody(_Body):
    state: str = Field(max_length=MAX_STATE)
    responses: dict[str, Any] | None
    capabilities: dict[str, Any] | None
    window: float | None
    principal: str = Field(max_length=200)
    tool: str = Field(max_length=200)
    arguments: dict[str, Any] | None
    transport: str = Field(max_length=20)
    client: str | None = Field(max_length=MAX_NAME)


class UpdateBody(_Body):
    task: str = Field(max_length=100)
    principal: str = Field(max_length=200)
    responses: dict[str, Any]


class _Error(_Body):
    code: int
    message: str = Field(max_length=4000)
    data: Any = None


class Outcome(_Body):
    """What the replica running the call replies: exactly one of these."""

    result: ToolResult | None = None  # validated field for field (a dataclass)
    input: dict[str, Any] | None = None  # an InputRequiredResult
    task: dict[str, Any] | None = None  # a CreateTaskResult
    error: _Error | None = None
    done: bool = False  # a task's answers were handed over


class RelayedCalls:
    """This replica's side of relayed answers: sends them on, and takes those sent here."""

    def __init__(self, relay: Relay) -> None:
        self.relay = relay

    async def serve(self, service: Replica, *, task_status: TaskStatus[None]) -> None:
        """Take the answers other replicas relay to `service`, until cancelled."""
        try:
            await self.relay.serve(functools.partial(self._handle, service), task_status=task_status)
        finally:
            await self.relay.close()

    def runs_elsewhere(self, state: str) -> bool:
        """Whether a parked call's state names another replica of this deployment."""
        instance = state.partition(".")[0]
        return (
            len(state) <= MAX_STATE
            and instance != self.relay.instance
            and INSTANCE.fullmatch(instance) is not None
        )

    async def resume(
        self,
        state: str,
        responses: dict[str, Any] | None,
        ctx: ServerRequestContext[Any],
        record: CallRecord,
        window: float | None,
    ) -> ToolResult | types.InputRequiredResult | CreateTaskResult:
        """The outcome of the call parked on the replica `state` names, given `responses`."""
        capabilities = ctx.session.client_capabilities
        body = ResumeBody(
            state=state,
            responses=_plain(responses),
            capabilities=capabilities.model_dump(by_alias=True, mode="json", exclude_none=True)
            if capabilities
            else None,
            window=window,
            principal=principal_of(ctx),
            tool=str(record.fields["tool"]),
            arguments=dict(record.arguments),
            transport=str(record.fields["transport"]),
            client=str(record.fields["client"])[:MAX_NAME]
            if record.fields["client"]
            else None,  # the client's words
        )
        outcome = await self._send(state.partition(".")[0], "resume", body)
        if outcome.result is not None:
            return outcome.result
        try:
            if outcome.input is not None:
                return types.InputRequiredResult.model_validate(outcome.input)
            if outcome.task is not None:
                return CreateTaskResult.model_validate(outcome.task)
        except ValidationError:
            pass
        raise _unreadable()

    async def update(self, record: TaskRecord, principal: str, responses: dict[str, Any]) -> None:
        """Hand `responses` to the task's script, on the replica that runs it."""
        body = UpdateBody(task=record.task_id, principal=principal, responses=_plain(responses) or {})
        outcome = await self._send(str(record.owner.get("instance", "")), "task-update", body)
        if not outcome.done:
            raise _unreadable()

    async def _send(self, instance: str, kind: Kind, body: _Body) -> Outcome:
        try:
            reply = await self.relay.send(instance, kind, body.model_dump(mode="json"))
        except RelayError as error:
            raise MCPError(
                code=error.code, message=f"The client's answers were not relayed: {error}."
            ) from None
        try:
            outcome = Outcome.model_validate(reply)
        except ValidationError:
            raise _unreadable() from None
        if outcome.error is not None:
            raise MCPError(code=outcome.error.code, message=outcome.error.message, data=outcome.error.data)
        return outcome

    async def _handle(self, service: Replica, kind: Kind, body: dict[str, Any]) -> dict[str, Any]:
        """The outcome of a message relayed to this replica, as the sender reads it."""
        try:
            if kind == "resume":
                return await _resume_here(service, ResumeBody.model_validate(body))
            update = UpdateBody.model_validate(body)
            record = await service.tasks.get(update.task, update.principal)
            await service.tasks.deliver(record, update.principal, update.responses)
            return {"done": True}
        except ValidationError:
            return _error(types.INVALID_PARAMS, "The relayed message is malformed.")
        except TaskNotFoundError:
            return _error(types.INVALID_PARAMS, "No such task: it has expired, or belongs to another client.")
        except MCPError as error:
            return {"error": error.error.model_dump(mode="json", exclude_none=True)}


async def _resume_here(service: Replica, body: ResumeBody) -> dict[str, Any]:
    """A call parked here, resumed with the answers another replica relayed."""
    capabilities = (
        types.ClientCapabilities.model_validate(body.capabilities) if body.capabilities is not None else None
    )
    outcome = await service.parked.resume(body.state, body.responses, capabilities, body.window)
    if isinstance(outcome, RunningCall):  # it works on: a task follows it, here
        try:
            tool = service.registry.get(body.tool)
        except UnknownToolError as unknown:
            outcome.waiting.scope.cancel()
            return _error(types.INVALID_PARAMS, str(unknown))
        record = CallRecord(service.audit, tool, body.tool, body.arguments, body.transport, body.client)
        went_on = await service.task_calls.go_on(tool, outcome, body.principal, capabilities, record)
        if isinstance(went_on, CreateTaskResult):
            return {"task": went_on.model_dump(by_alias=True, mode="json", exclude_none=True)}
        outcome = went_on
    if isinstance(outcome, types.InputRequiredResult):
        return {"input": outcome.model_dump(by_alias=True, mode="json", exclude_none=True)}
    return {"result": dataclasses.asdict(outcome)}


def _plain(responses: dict[str, Any] | None) -> dict[str, Any] | None:
    """The client's answers as JSON (they may be the SDK's models)."""
    if responses is None:
        return None
    return {
        key: value.model_dump(by_alias=True, mode="json", exclude_none=True)
        if isinstance(value, BaseModel)
        else value
        for key, value in responses.items()
    }


def _error(code: int, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def _unreadable() -> MCPError:
    return MCPError(
        code=types.INTERNAL_ERROR, message="The replica running this call replied with something unreadable."
    )
