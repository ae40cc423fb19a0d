"""Stage 1, discovery: scripts under `tools/` -> one config per tool under `config/tools/`."""

from toolkiln.discover.core import DEFAULT_PROBE_TIMEOUT, DiscoveryReport, ToolStatus, discover_tools

__all__ = ["DEFAULT_PROBE_TIMEOUT", "DiscoveryReport", "ToolStatus", "discover_tools"]
