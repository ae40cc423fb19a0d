"""Serving the registry over MCP: the only package that imports the mcp SDK.

Import each name from the module that defines it (`toolkiln.serve.service`, ...): the
package re-exports nothing, so importing a module of it loads only what that module
needs (`toolkiln tasks` reads the SDK-free task store, tasks/store.py, without the SDK).
"""
