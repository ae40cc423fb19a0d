"""Long-running tool calls as MCP tasks (SEP-2663): the store, the running tasks and
the extension's methods on the wire.

Import each name from the module that defines it: the store (store.py, sqlite.py)
imports no SDK, and `toolkiln tasks` reads it without loading one.
"""
