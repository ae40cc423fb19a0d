"""How arguments reach a Node.js command-line script (the node-cli dialect), as
commander, yargs and `parseArgs` read them. Each parameter's `option` says how:

    "--name"   `--name=value`, one word, whatever the value (a leading `-` included);
               an array repeats it (`--tag=a --tag=b`), which all three accumulate;
               a boolean is `--name` when true, and `--no-name` when false against a
               default of true
    "--name="  a yargs boolean known only by its default (`.default('x', false)`):
               yargs reads `--name` alone as that default, so true is `--name=true`
               (the script sees the truthy string "true") and false `--no-name`,
               each only when it is not the default
    "--no-x"   a negatable commander flag: `--no-x` when false
    "-n"       a short-only option: `-nvalue`, or `-n` for a boolean
    ""         a positional before the options (yargs' `$0 <file>`), one word each,
               refused when it starts with `-` (it would pose as an option)
    "--"       a positional after `--` (commander, parseArgs, yargs' `argv._`)

Positionals go in their declared order; an optional one left out ends them. A tool
that is one of the script's subcommands (its `command`) gets the program's options
(`before_command`) first, then the subcommand's word, then its own:

    script --db=x add <leading> --tag=a -- <trailing>
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkiln.conventions.words import option_word, plain_values, refuse_positional_gap, text_words
from toolkiln.interpreters import script_command
from toolkiln.model import CompiledTool


def node_cli_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    early: list[str] = []
    leading: list[str] = []
    options: list[str] = []
    trailing: list[str] = []
    skipped: str | None = None
    for param in tool.parameters:
        if param.option is None:
            continue
        if param.name not in arguments:
            if param.option in ("", "--"):
                skipped = skipped or param.name
            continue
        value = arguments[param.name]
        values = text_words(value)
        if param.option in ("", "--"):
            if skipped is not None:
                raise refuse_positional_gap(param.name, skipped)
            if param.option == "":
                leading += plain_values(param.name, values)
            else:
                trailing += values
        else:
            into = early if tool.command is not None and param.before_command else options
            into += _option_words(param.option, param.type, param.default, value, values)
    command = [tool.command] if tool.command is not None else []
    after = ["--", *trailing] if trailing else []
    return [*script_command(script, "node"), *early, *command, *leading, *options, *after]


def _option_words(option: str, param_type: str, default: Any, value: Any, values: list[str]) -> list[str]:
    if param_type == "boolean" and option.endswith("="):
        if (value is True) == (default is True):
            return []  # the script's own default
        return [f"{option}true"] if value is True else [f"--no-{option[2:-1]}"]
    if param_type == "boolean":
        return _flag(option, value is True, default is True)
    return [option_word(option, item) for item in values]


def _flag(option: str, value: bool, default_true: bool) -> list[str]:
    if option.startswith("--no-"):
        return [] if value else [option]
    if value:
        return [option]
    return [f"--no-{option[2:]}"] if default_true and option.startswith("--") else []
