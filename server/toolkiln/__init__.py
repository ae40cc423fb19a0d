"""toolkiln: turn a folder of ordinary scripts into an MCP server."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("toolkiln")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"
