"""Running tool calls: the registry of compiled tools, argument checks, the call (each
convention says how its tools start: conventions/launchers.py).

No mcp import here: `toolkiln call` runs tools through this package without the SDK.
"""

from toolkiln.runner.call import RunSettings, ToolRunner
from toolkiln.runner.environment import server_env
from toolkiln.runner.observer import CallObserver, LoggingObserver
from toolkiln.runner.registry import Registry, UnknownToolError
from toolkiln.runner.result import ToolResult
from toolkiln.runner.stderr import LogLine, ProgressLine

__all__ = [
    "CallObserver",
    "LogLine",
    "LoggingObserver",
    "ProgressLine",
    "Registry",
    "RunSettings",
    "ToolResult",
    "ToolRunner",
    "UnknownToolError",
    "server_env",
]
