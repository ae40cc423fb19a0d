"""toolkiln: turn a folder of ordinary scripts into an MCP server."""

# Read by the build backend too (pyproject.toml, [tool.hatch.version]); kept a literal
# because importlib.metadata costs ~50 ms at every start of every command.
__version__ = "0.1.0"
