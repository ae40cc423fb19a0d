"""How a plain shell script (the `shell` dialect) gets its arguments: as its own option
loop and `$1`... reads expect them.

    script [-o value] [--name value] [--name=value] [-v] [--] positional... [rest...]

Each parameter's `option` says how: `-o` or `--name` is the option and its value as two
words (as `getopts` and `shift 2` read them), `--name=` is one word `--name=value`, a
boolean is its bare flag when true; "" is a positional, in order, and "--" a positional
after a `--` the script's loop understands (so a value may start with `-`). A positional
value starting with `-` is refused when the script reads options and no `--` ends them
(it would read the value as an option); a script that reads no option gets it as it is. A positional
left out before one given is given its default, else the call is refused: the script
would read the later value as the earlier one. The parameter with no `option` (`stdin`)
is the script's standard input.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkiln.conventions.words import plain_values, refuse_positional_gap, text_form, text_words
from toolkiln.interpreters import script_command
from toolkiln.model import CompiledTool


def shell_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    options: list[str] = []
    positionals: list[str] = []
    separator = False
    missing: str | None = None
    # A value starting with `-` would pose as an option only to a script that reads options.
    reads_options = any(param.option not in (None, "", "--") for param in tool.parameters)
    for param in tool.parameters:
        if param.option is None:
            continue
        given = param.name in arguments
        value = arguments.get(param.name, param.default)
        if param.option in ("", "--"):
            if not given and param.default in (None, []):
                missing = missing or param.name
                continue
            if missing is not None and given:
                raise refuse_positional_gap(param.name, missing)
            words = text_words(value)
            separator = separator or param.option == "--"
            free = param.option == "--" or not reads_options
            positionals += words if free else plain_values(param.name, words)
        elif not given:
            continue
        elif param.type == "boolean":
            options += [param.option] if value is True else []
        elif param.option.endswith("="):
            options.append(param.option + text_form(value))
        else:
            options += [param.option, text_form(value)]
    trailing = _trailing_defaults(tool, arguments)
    if trailing:
        positionals = positionals[: len(positionals) - trailing]
    return [*script_command(script), *options, *(["--"] if separator and positionals else []), *positionals]


def _trailing_defaults(tool: CompiledTool, arguments: Mapping[str, Any]) -> int:
    """How many positionals at the end were filled with their defaults only: those are
    left out, so that the script applies its own (`${2:-800}`)."""
    count = 0
    for param in reversed([p for p in tool.parameters if p.option in ("", "--")]):
        if param.name in arguments or param.default in (None, []):
            break
        count += 1
    return count


def shell_stdin(tool: CompiledTool, arguments: Mapping[str, Any]) -> bytes:
    """The script's standard input: its `stdin` parameter's text, else nothing."""
    for param in tool.parameters:
        if param.option is None and param.name in arguments:
            return text_form(arguments[param.name]).encode()
    return b""
