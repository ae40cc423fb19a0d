"""Whether the runtime toolkiln ships for a tool's convention was reached.

An argc script runs `eval "$(argc --argc-eval "$0" "$@")"`; an mcp-bash tool sources
`"$MCP_SDK/tool-sdk.sh"`. When the script cannot reach toolkiln's runtime (an install
the call cannot see, a file removed), bash says so on stderr and, for argc, evaluates
nothing and goes on: the call would end well, with no output, as if it had been given
no arguments. Such a call is an error that names what is missing. (A runtime that is
reached but fails says so itself: `runtimes/argc/bin/argc` makes the script exit 70.)
The convention knows what its runtime's absence looks like (`Launch.runtime_missing`);
the runner only asks.
"""

from __future__ import annotations

from toolkiln.conventions import launchers
from toolkiln.model import CompiledTool


def runtime_missing(tool: CompiledTool, stderr: str) -> str | None:
    """Why `tool`'s finished run did not reach toolkiln's runtime, or None when it did."""
    launch = launchers.LAUNCHERS.get(launchers.convention_of(tool))
    if launch is None or launch.runtime_missing is None:
        return None
    return launch.runtime_missing(tool, stderr)
