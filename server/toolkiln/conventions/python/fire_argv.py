"""How arguments reach a Python Fire script (the python dialect's `fire` entry):

    python3 script.py [<command>] --name='Ada' --times=3 --tags=['a', 'b']

Fire reads each value as a Python literal (`1` is an int, `[1]` a list, a bare word a
string), so a string `"1"` given as `1` would reach the function as the int 1. Every value
is written as the Python literal of its JSON value (`repr`: `'1'`, `True`, `None`,
`{'a': [1, 2]}`), which Fire reads back exactly, whatever the text holds. One word per
value, `--name=...`, so a value is never read as another flag; a value equal to the
default is not given (the function applies its own).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkiln.interpreters import python_command
from toolkiln.model import CompiledTool


def fire_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    words = [
        f"{param.option}={arguments[param.name]!r}"
        for param in tool.parameters
        if param.option and param.name in arguments and arguments[param.name] != param.default
    ]
    return [*python_command(script), str(script), *([tool.command] if tool.command else []), *words]
