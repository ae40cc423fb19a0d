"""Serving the registry over MCP: the only package that imports the mcp SDK."""

from toolkiln.serve.guard import Admission, is_loopback
from toolkiln.serve.handlers import build_server
from toolkiln.serve.http import DEFAULT_MAX_BODY, DEFAULT_PORT, HttpSettings, serve_http
from toolkiln.serve.listener import bind
from toolkiln.serve.service import ToolService
from toolkiln.serve.stdio import serve_stdio
from toolkiln.serve.watch import watch_and_reload

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
