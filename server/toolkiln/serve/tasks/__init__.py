"""Long-running tool calls as MCP tasks (SEP-2663): the store, the running tasks and
the extension's methods on the wire."""

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

__all__ = [
    "EXTENSION_ID",
    "CreateTaskResult",
    "StoreFullError",
    "StoreUnreachableError",
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
