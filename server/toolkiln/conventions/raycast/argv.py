"""How a Raycast script command runs: each argument positional, as Raycast passes them."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from toolkiln.conventions.words import plain_values, text_form
from toolkiln.interpreters import script_command
from toolkiln.model import CompiledTool


def raycast_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    """As Raycast runs a script command: each argument positional (`$1 $2 $3`) in order,
    "" for an optional one left out, percent-encoded when it says `percentEncoded`."""
    values = []
    for param in tool.parameters:
        value = text_form(arguments.get(param.name, ""))
        if param.enum is None:  # a free value: a script handing `$1` on must not get an option
            plain_values(param.name, [value])
        values.append(quote(value, safe="") if param.encoding == "percent" else value)
    return [*script_command(script), *values]
