"""How a JavaScript function tool runs: toolkiln's Node runner (`runtimes/run_function.cjs`)
imports it and calls its `run(arguments)` (or the function its `command` names: an
agent's `tools.js`) with the stdin JSON."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkiln.errors import ProcessStartError
from toolkiln.model import CompiledTool

FUNCTION_RUNNER = Path(__file__).resolve().parents[2] / "runtimes" / "run_function.cjs"


def function_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    node = shutil.which("node")
    if node is None:
        raise ProcessStartError(
            "it is a JavaScript function tool and needs node (Node.js), which is not installed "
            "on the PATH; install Node.js 18 or later"
        )
    return [node, str(FUNCTION_RUNNER), str(script), *([tool.command] if tool.command else [])]
