"""Who in this process hears of a task's changes: the `subscriptions/listen` streams
that asked for it by id (listen.py). `TaskService` publishes a task's record each time
it writes a new status or new questions (tasks/service.py); a stream registered for that id
gets it, and nothing else. SDK-free.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from toolkiln.serve.tasks.store import TaskRecord

logger = logging.getLogger(__name__)

Deliver = Callable[[TaskRecord], None]


class TaskNotices:
    """Task id -> the listeners of that task. Listeners are synchronous, quick (they put
    the record on a bounded stream) and called on the event loop."""

    def __init__(self) -> None:
        self._listeners: dict[str, dict[object, Deliver]] = {}

    def watch(self, task_ids: Iterable[str], deliver: Deliver) -> Callable[[], None]:
        """Call `deliver` with each new record of these tasks; returns the way to stop."""
        token = object()
        ids = list(dict.fromkeys(task_ids))
        for task_id in ids:
            self._listeners.setdefault(task_id, {})[token] = deliver

        def unwatch() -> None:
            for task_id in ids:
                listeners = self._listeners.get(task_id)
                if listeners is not None:
                    listeners.pop(token, None)
                    if not listeners:
                        del self._listeners[task_id]

        return unwatch

    def publish(self, record: TaskRecord | None) -> None:
        """Hand `record` (a task as it is now) to its listeners; none: nothing happens."""
        if record is None:
            return
        for deliver in list(self._listeners.get(record.task_id, {}).values()):
            try:
                deliver(record)
            except Exception:  # one broken listener must not stop the task's writer
                logger.exception("a listener of task %s failed", record.task_id)

    def watched(self) -> int:
        """How many task ids have listeners (for tests and the bounds)."""
        return len(self._listeners)
