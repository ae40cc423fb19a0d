"""Task status notifications (SEP-2663): `notifications/tasks` on a `subscriptions/listen`
stream whose filter names `taskIds`.

A listen request without `taskIds` is the SDK's own `ListenHandler`'s, unchanged. One
with them is served here, and also carries the list-changed and resource events the
filter asks for (the same bus, the same matching):

- the client must declare the tasks extension on the request, or gets -32021;
- only the ids of tasks this client owns (its principal: principal.py) are kept. The
  acknowledgement names them; an id that is another client's, expired or never was is
  dropped alike, so a stream reveals nothing of tasks that are not the client's own;
- right after the acknowledgement, each kept task's state as it is now (a task that
  ended before the client listened is not waited for in vain); then one notification
  per new status (or new set of questions), each the task as `tasks/get` gives it;
- a task run by another process (another replica of a shared store, a server that
  died) is read from the store every `POLL_SECONDS` while it has not ended;
- bounds: `MAX_TASK_IDS` ids a stream, `BUFFERED` notifications waiting for a client
  that does not read (the stream is then ended: the client listens again), and the
  streams open at once, per client address and in all, this one's and the SDK's plain
  ones alike: a new stream closes the oldest of the client holding the most, never
  waits or is refused (stream_slots.py).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import anyio
import anyio.streams.memory
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import SUBSCRIPTION_ID_META_KEY, ListenHandler, ServerEvent, SubscriptionBus
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import event_matches, event_to_notification
from mcp_types import (
    SubscriptionFilter,
    SubscriptionsAcknowledgedNotification,
    SubscriptionsAcknowledgedNotificationParams,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
)

from toolkiln.serve.tasks.principal import principal_of
from toolkiln.serve.tasks.protocol import declares_tasks, detailed_task, missing_extension
from toolkiln.serve.tasks.service import TaskNotFoundError, TaskService
from toolkiln.serve.tasks.store import TaskRecord
from toolkiln.serve.tasks.stream_slots import StreamSlots, client_address

logger = logging.getLogger(__name__)

MAX_TASK_IDS = 64  # task ids one stream may follow
BUFFERED = 256  # notifications a stream holds for a client that does not read
POLL_SECONDS = 1.0  # how often a task run by another process is read from the store
TASK_ID_CHARS = 128  # longer is no task id of ours: not looked up


class TaskStatusNotification(types.Notification[dict[str, Any], Literal["notifications/tasks"]]):
    """`notifications/tasks`: the task, as `tasks/get` gives it (`DetailedTask`)."""

    method: Literal["notifications/tasks"] = "notifications/tasks"
    params: dict[str, Any]


class TasksListenHandler:
    """`subscriptions/listen`, with the tasks extension's `taskIds`."""

    def __init__(self, plain: ListenHandler, bus: SubscriptionBus, tasks: TaskService) -> None:
        self.plain, self.bus, self.tasks = plain, bus, tasks
        self.slots = StreamSlots()

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        requested = (params.notifications.model_extra or {}).get("taskIds")
        if requested is None:  # the SDK's stream, in a slot of the same table
            return await self._in_slot(ctx, lambda: self.plain(ctx, params))
        if not declares_tasks(ctx):
            raise missing_extension("Task status notifications (taskIds on subscriptions/listen)")
        task_ids = _task_ids(requested)
        if ctx.request_id is None:
            raise MCPError(types.INVALID_REQUEST, "subscriptions/listen requires a request id")
        principal = principal_of(ctx)
        return await self._in_slot(ctx, lambda: self._serve(ctx, params.notifications, task_ids, principal))

    async def _in_slot(
        self,
        ctx: ServerRequestContext[Any, Any],
        serve: Callable[[], Awaitable[SubscriptionsListenResult]],
    ) -> SubscriptionsListenResult:
        """Serve a stream in a slot of `self.slots` (stream_slots.py): when another stream
        needs the slot, this one ends as a stream does, with its result."""
        with anyio.CancelScope() as scope, self.slots.slot(client_address(ctx), scope.cancel):
            return await serve()
        return SubscriptionsListenResult(_meta={SUBSCRIPTION_ID_META_KEY: ctx.request_id})

    async def _serve(
        self,
        ctx: ServerRequestContext[Any, Any],
        wanted: SubscriptionFilter,
        task_ids: list[str],
        principal: str,
    ) -> SubscriptionsListenResult:
        subscription_id = ctx.request_id
        assert subscription_id is not None
        meta: dict[str, Any] = {SUBSCRIPTION_ID_META_KEY: subscription_id}
        send, receive = anyio.create_memory_object_stream[ServerEvent | TaskRecord](BUFFERED)

        def put(item: ServerEvent | TaskRecord) -> None:
            try:
                send.send_nowait(item)
            except anyio.ClosedResourceError:
                pass
            except anyio.WouldBlock:  # the client stopped reading: end the stream
                logger.warning("listen stream %r: backlog full; ending it", subscription_id)
                send.close()

        def on_task(record: TaskRecord) -> None:
            if record.principal == principal:  # only its own, whatever it asked for
                put(record)

        honored = _honored(wanted, [])
        uris = frozenset(honored.resource_subscriptions or ())

        def on_event(event: ServerEvent) -> None:
            if event_matches(honored, uris, event):
                put(event)

        # Registered before the tasks are read, so no change falls between the two
        # (`Sent` drops a state older than one already sent).
        unwatch = self.tasks.notices.watch(task_ids, on_task)
        unsubscribe = self.bus.subscribe(on_event)
        try:
            owned = await self._owned(task_ids, principal)
            honored = _honored(wanted, list(owned))
            await ctx.session.send_notification(
                SubscriptionsAcknowledgedNotification(
                    params=SubscriptionsAcknowledgedNotificationParams(notifications=honored, _meta=meta)
                ),
                related_request_id=subscription_id,
            )
            for record in owned.values():
                put(record)
            sent = Sent(meta)
            async with anyio.create_task_group() as group:
                if owned:
                    group.start_soon(self._poll, list(owned), principal, sent, put)
                async for item in receive:
                    if isinstance(item, TaskRecord):
                        notification: Any = sent.notification(item)
                    else:
                        notification = event_to_notification(item, meta)
                    if notification is not None:
                        await ctx.session.send_notification(notification, related_request_id=subscription_id)
                group.cancel_scope.cancel()
        finally:
            unwatch()
            unsubscribe()
            send.close()
            receive.close()
        return SubscriptionsListenResult(_meta=meta)

    async def _owned(self, task_ids: list[str], principal: str) -> dict[str, TaskRecord]:
        """The requested tasks that are this principal's, as they are now. Any other id
        is dropped the same way, whether it is another's, expired, or never was."""
        owned: dict[str, TaskRecord] = {}
        for task_id in task_ids:
            if len(task_id) > TASK_ID_CHARS:
                continue
            try:
                owned[task_id] = await self.tasks.get(task_id, principal)
            except TaskNotFoundError:
                continue
        return owned

    async def _poll(self, task_ids: list[str], principal: str, sent: Sent, put: Any) -> None:
        """Read from the store the followed tasks that another process runs (their
        changes are not published here), until they end."""
        while True:
            await anyio.sleep(POLL_SECONDS)
            for task_id in task_ids:
                if sent.ended(task_id) or self.tasks.runs_here(task_id):
                    continue
                try:
                    put(await self.tasks.get(task_id, principal))
                except TaskNotFoundError:  # expired: nothing more will come of it
                    sent.forget(task_id)
                except MCPError as error:  # the store is unreachable: try again later
                    logger.debug("listen: task %s not read: %s", task_id, error)


class Sent:
    """What a stream has told of each task: a notification only for a new state, and
    never one older than a state already sent."""

    def __init__(self, meta: dict[str, Any]) -> None:
        self.meta = meta
        self._last: dict[str, tuple[float, tuple[Any, ...]]] = {}
        self._gone: set[str] = set()

    def notification(self, record: TaskRecord) -> TaskStatusNotification | None:
        state = (record.status, tuple(sorted(record.input_requests or {})))
        last = self._last.get(record.task_id)
        if record.task_id in self._gone or (
            last is not None and (record.updated_at < last[0] or state == last[1])
        ):
            return None
        self._last[record.task_id] = (record.updated_at, state)
        task = {key: value for key, value in detailed_task(record).items() if key != "resultType"}
        task["_meta"] = {**task.get("_meta", {}), **self.meta}
        return TaskStatusNotification(params=task)

    def ended(self, task_id: str) -> bool:
        last = self._last.get(task_id)
        return task_id in self._gone or (
            last is not None and last[1][0] in ("completed", "failed", "cancelled")
        )

    def forget(self, task_id: str) -> None:
        self._gone.add(task_id)


def _task_ids(requested: Any) -> list[str]:
    """The requested ids, each once; -32602 for anything but a short list of strings."""
    if not isinstance(requested, list) or not all(isinstance(item, str) for item in requested):
        raise MCPError(types.INVALID_PARAMS, "notifications.taskIds must be a list of task ids (strings).")
    task_ids = list(dict.fromkeys(requested))
    if len(task_ids) > MAX_TASK_IDS:
        raise MCPError(
            types.INVALID_PARAMS,
            f"notifications.taskIds names {len(task_ids)} tasks; one stream follows at most {MAX_TASK_IDS}.",
        )
    return task_ids


def _honored(wanted: SubscriptionFilter, task_ids: list[str]) -> SubscriptionFilter:
    """What this stream will deliver, for the acknowledgement (as the SDK's handler
    says it, plus the task ids kept)."""
    return SubscriptionFilter.model_validate(
        {
            "toolsListChanged": True if wanted.tools_list_changed else None,
            "promptsListChanged": True if wanted.prompts_list_changed else None,
            "resourcesListChanged": True if wanted.resources_list_changed else None,
            "resourceSubscriptions": list(wanted.resource_subscriptions or ()) or None,
            "taskIds": task_ids,
        }
    )
