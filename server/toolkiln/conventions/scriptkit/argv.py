"""How a Script Kit script runs: toolkiln's runtime of `@johnlindquist/kit`
(`runtimes/scriptkit/run.mjs`) imports it with the stdin JSON as its input."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkiln.errors import ProcessStartError
from toolkiln.interpreters import TYPESCRIPT_SUFFIXES, node_command
from toolkiln.model import CompiledTool

SCRIPTKIT_RUNNER = Path(__file__).resolve().parents[2] / "runtimes" / "scriptkit" / "run.mjs"


def scriptkit_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    """The runtime, the script, and the names of the parameters its `arg()` calls take, in
    order (their values stay on stdin)."""
    typescript = script.suffix.lower() in TYPESCRIPT_SUFFIXES
    node = node_command(typescript=typescript)
    if node is None:
        wanted = "22.6 or later (TypeScript)" if typescript else "20.6 or later"
        raise ProcessStartError(
            f"it is a Script Kit script and needs node (Node.js) {wanted}, which is not "
            "installed on the PATH; install it"
        )
    positional = [param.name for param in tool.parameters if param.option == ""]
    return [*node, str(SCRIPTKIT_RUNNER), str(script), *positional]
