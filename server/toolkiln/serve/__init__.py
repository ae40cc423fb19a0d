"""Serving the registry over MCP: the only package that imports the mcp SDK."""

from toolkiln.serve.handlers import build_server
from toolkiln.serve.stdio import serve_stdio

__all__ = ["build_server", "serve_stdio"]
