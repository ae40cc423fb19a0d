"""Long-running tool calls as MCP tasks (SEP-2663): the store, the running tasks and
the extension's methods on the wire.

Its names load on first use (PEP 562): the store (store.py, sqlite.py) imports no SDK,
and `toolkiln tasks` reads it without loading one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkiln.lazy_names import lazy_names

if TYPE_CHECKING:
    from toolkiln.serve.tasks.job_run import TaskCall
    from toolkiln.serve.tasks.jobs import TaskNotFoundError, TaskService
    from toolkiln.serve.tasks.principal import principal_of
    from toolkiln.serve.tasks.protocol import (
        EXTENSION_ID,
        CreateTaskResult,
        TasksExtension,
        apply_extension,
        create_task_result,
        may_create_task,
    )
    from toolkiln.serve.tasks.store import (
        StoreFullError,
        StoreUnreachableError,
        TaskRecord,
        TaskStore,
        TaskStoreError,
    )

_HOMES = {
    "TaskCall": "job_run",
    "TaskNotFoundError": "jobs",
    "TaskService": "jobs",
    "principal_of": "principal",
    "EXTENSION_ID": "protocol",
    "CreateTaskResult": "protocol",
    "TasksExtension": "protocol",
    "apply_extension": "protocol",
    "create_task_result": "protocol",
    "may_create_task": "protocol",
    "StoreFullError": "store",
    "StoreUnreachableError": "store",
    "TaskStoreError": "store",
    "TaskRecord": "store",
    "TaskStore": "store",
}

__all__ = [
    "EXTENSION_ID",
    "CreateTaskResult",
    "StoreFullError",
    "StoreUnreachableError",
    "TaskCall",
    "TaskNotFoundError",
    "TaskRecord",
    "TaskService",
    "TaskStore",
    "TaskStoreError",
    "TasksExtension",
    "apply_extension",
    "create_task_result",
    "may_create_task",
    "principal_of",
]


__getattr__ = lazy_names(__name__, _HOMES)
