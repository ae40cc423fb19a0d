"""How an annotated script gets its arguments (seeds/003): `run.sh [<function>] --name=value ...`,
as well as on stdin and in env."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkiln.conventions.words import plain_values, text_form
from toolkiln.interpreters import script_command
from toolkiln.model import CompiledTool

# An annotated script's `function` parameter is its first positional argument.
FUNCTION_PARAMETER = "function"


def annotations_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    argv = script_command(script)
    if FUNCTION_PARAMETER in arguments:  # a bare word: it must not pose as an option
        argv += plain_values(FUNCTION_PARAMETER, [text_form(arguments[FUNCTION_PARAMETER])])
    argv += [
        f"--{name}={text_form(value)}" for name, value in arguments.items() if name != FUNCTION_PARAMETER
    ]
    return argv
