"""How arguments reach a Python script that reads `sys.argv` by hand (the python
dialect's `argv` entry): each positional parameter one word, in the order of the
parameters (`sys.argv[1]`, `sys.argv[2]`, ...), an array's items one word each, and the
`stdin` parameter, when the script has one, on its standard input (else stdin is closed):

    python3 convert_pdf_to_images.py in.pdf out/

A value reaches the script exactly as given, even one starting with `-`: the script takes
`sys.argv[1]` as it is, with no parser to read it as an option. Optional parameters left
out at the end are not given (the script's `len(sys.argv)` check applies its default), nor
are trailing values equal to their defaults; one given after an optional left out would
take its place: refused, naming both.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkiln.conventions.words import refuse_positional_gap, text_words
from toolkiln.interpreters import python_command

if TYPE_CHECKING:  # the reader imports STDIN_PARAMETER: no models in an unchanged discovery
    from toolkiln.model import CompiledTool

STDIN_PARAMETER = "stdin"


def argv_words(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    positionals = [param for param in tool.parameters if param.option == ""]
    # The words end at the last value that says something: a trailing default (which the
    # server fills in) is left for the script's own `len(sys.argv)` check to apply.
    last = max(
        (
            place
            for place, param in enumerate(positionals)
            if param.name in arguments and (param.default is None or arguments[param.name] != param.default)
        ),
        default=-1,
    )
    words: list[str] = []
    for param in positionals[: last + 1]:
        if param.name not in arguments:
            raise refuse_positional_gap(positionals[last].name, param.name)
        words += text_words(arguments[param.name])
    return [*python_command(script), str(script), *words]


def reads_by_hand(tool: CompiledTool) -> bool:
    """Whether `tool` is a Python script (or command) that reads `sys.argv` by hand: its
    `stdin` parameter is its stdin only."""
    return tool.python_entry == "argv"


def argv_stdin(tool: CompiledTool, arguments: Mapping[str, Any]) -> bytes | None:
    """The `stdin` parameter's text, or None (stdin closed) for a script that reads none."""
    if not any(param.name == STDIN_PARAMETER and param.option is None for param in tool.parameters):
        return None
    value = arguments.get(STDIN_PARAMETER)
    return value.encode("utf-8", errors="replace") if isinstance(value, str) else b""
