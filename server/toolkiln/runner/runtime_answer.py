"""Whether the runtime toolkiln ships for a tool's convention was reached.

An argc script runs `eval "$(argc --argc-eval "$0" "$@")"`; an mcp-bash tool sources
`"$MCP_SDK/tool-sdk.sh"`. When the script cannot reach toolkiln's runtime (an install
the call cannot see, a file removed), bash says so on stderr and, for argc, evaluates
nothing and goes on: the call would end well, with no output, as if it had been given
no arguments. Such a call is an error that names what is missing. (A runtime that is
reached but fails says so itself: `runtimes/argc/bin/argc` makes the script exit 70.)
"""

from __future__ import annotations

import re

from toolkiln.model import CompiledTool

_ARGC_NOT_FOUND = re.compile(r"\bargc: (?:command )?not found")
_SDK_NOT_FOUND = re.compile(r"tool-sdk\.sh: No such file or directory")


def runtime_missing(tool: CompiledTool, stderr: str) -> str | None:
    """Why `tool`'s finished run did not reach toolkiln's runtime, or None when it did."""
    if tool.dialect == "argc" and _ARGC_NOT_FOUND.search(stderr):
        from toolkiln.runtimes.argc import SHIM_BIN

        return (
            f"Tool {tool.name!r} could not run toolkiln's argc runtime ({SHIM_BIN / 'argc'}): the "
            "script's `argc --argc-eval` was not found, so it got none of its arguments. Check that "
            "the file is there (reinstall toolkiln) and that the script does not replace PATH."
        )
    if tool.dialect == "sidecar" and _SDK_NOT_FOUND.search(stderr):
        from toolkiln.conventions.sidecar.argv import MCP_SDK

        return (
            f"Tool {tool.name!r} could not source toolkiln's mcp-bash SDK ({MCP_SDK / 'tool-sdk.sh'}): "
            "the file is missing where the script looked (MCP_SDK). Reinstall toolkiln."
        )
    return None
