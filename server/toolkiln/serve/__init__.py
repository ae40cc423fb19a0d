"""Serving the registry over MCP: the only package that imports the mcp SDK.

Its names load on first use (PEP 562), so that a command that needs only the SDK-free
task store (`toolkiln tasks`: tasks/store.py, tasks/sqlite.py) does not import the SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkiln.lazy_names import lazy_names

if TYPE_CHECKING:
    from toolkiln.serve.guard import Admission, is_loopback
    from toolkiln.serve.handlers import build_server
    from toolkiln.serve.http import DEFAULT_MAX_BODY, DEFAULT_PORT, HttpSettings, serve_http
    from toolkiln.serve.listener import bind
    from toolkiln.serve.service import ToolService
    from toolkiln.serve.stdio import serve_stdio
    from toolkiln.serve.watch import watch_and_reload

_HOMES = {
    "Admission": "guard",
    "is_loopback": "guard",
    "build_server": "handlers",
    "DEFAULT_MAX_BODY": "http",
    "DEFAULT_PORT": "http",
    "HttpSettings": "http",
    "serve_http": "http",
    "bind": "listener",
    "ToolService": "service",
    "serve_stdio": "stdio",
    "watch_and_reload": "watch",
}

__all__ = [
    "DEFAULT_MAX_BODY",
    "DEFAULT_PORT",
    "Admission",
    "HttpSettings",
    "ToolService",
    "bind",
    "build_server",
    "is_loopback",
    "serve_http",
    "serve_stdio",
    "watch_and_reload",
]


__getattr__ = lazy_names(__name__, _HOMES)
