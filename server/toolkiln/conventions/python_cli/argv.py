"""How arguments reach a Python command-line script (argparse, click, typer: the python
dialect's `script` entry), each value one argv word, as its parser reads it:

    python3 script.py [options] [<command> [its options]] [-- <positionals>]

(`<command>` for a tool that is one of the script's subcommands: its `command`.)

An option with a value is one word, `--name=value` (a short one `-nvalue`), so a value
that starts with `-` stays a value; a flag is given when its value differs from its
default (`--x`, or `--no-x` for a flag with a negative form); a count is the flag given
N times; an array is one `--tag=value` per item (`repeat`), or the option followed by its
items (`list`, argparse's `nargs="+"`: an item starting with `-` is refused, as it would
pose as an option); the positionals come after `--` (a positional `--` is refused). A
value equal to the default is not given: the script applies its own (argparse's `append`
would add to it).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkiln.conventions.words import option_word, plain_values, refuse_positional_gap, text_form, text_words
from toolkiln.errors import ProcessStartError
from toolkiln.interpreters import python_command
from toolkiln.model import CompiledTool, Parameter


def python_script_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    # A subcommand's tool: the script's own options and arguments first (`before_command`),
    # then the subcommand's word, then its options; every positional after the word, after `--`.
    groups: dict[bool, tuple[list[str], list[str]]] = {True: ([], []), False: ([], [])}
    missing: dict[bool, str] = {}
    for param in tool.parameters:
        if param.option is None:
            continue
        early = tool.command is not None and param.before_command
        options, positionals = groups[early]
        if param.option == "":
            if param.name not in arguments:
                missing.setdefault(early, param.name)
                continue
            if early in missing:
                raise refuse_positional_gap(param.name, missing[early])
            value = arguments[param.name]
            words = text_words(value)
            if early:
                positionals += plain_values(param.name, words)  # before the command: no `--` there
            else:
                positionals += _not_separators(param.name, words)
        elif param.name in arguments and arguments[param.name] != param.default:
            options += option_words(param, arguments[param.name])
    (early_options, early_positionals), (options, positionals) = groups[True], groups[False]
    argv = [*python_command(script), str(script), *early_options, *early_positionals]
    argv += (
        tool.command.split(" ") if tool.command is not None else []
    )  # `users create`: a nested group's leaf
    return [*argv, *options, *(["--", *positionals] if positionals else [])]


def option_words(param: Parameter, value: Any) -> list[str]:
    """The words that give an option its value."""
    option = param.option or ""
    if param.type == "boolean" and param.option_form in ("flag", None):
        positive, _, negative = option.partition("/")
        if negative:  # `--x/--no-x`
            return [positive if value else negative]
        return [positive] if value != bool(param.default) else []  # store_true, store_false
    if param.option_form == "count":
        return [option] * int(value)
    if param.option_form == "list" or (param.option_form is None and isinstance(value, list)):
        return [option, *plain_values(param.name, [text_form(item) for item in value])]  # a config of old
    if param.option_form == "repeat":
        return [option_word(option, text_form(item)) for item in value]
    return [option_word(option, text_form(value))]


def _not_separators(name: str, words: list[str]) -> list[str]:
    """Positional values after `--`; `--` itself is refused (argparse before 3.12 drops it
    from a positional's values, so the script would see another list)."""
    if "--" in words:
        raise ProcessStartError(
            f"argument {name!r}: the value '--' cannot be passed as a positional argument "
            "(the script's parser would take it for the end of its options)",
            about_arguments=True,
        )
    return words
