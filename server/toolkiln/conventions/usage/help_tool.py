"""A tool from help text: the parameters a program's own `--help` (or printed usage)
declares, when they can all be named and passed, else None with the reason.

    usage: shrink.rb [-q] [-o FILE] [--level=N] <image> [<more>...]
      -o FILE      Where to write
      --level=N    How hard [default: 3]

is a tool with `q` (a flag, `-q`), `o` (`-o value`), `level` (`--level=value`, default
3), a required `image` and an optional array `more`, passed as the shell convention
passes them (conventions/shell/argv.py): options first, then the positionals in order.

Never a broken tool: help with subcommands or fixed command words, several usage lines
that are not one interface, two repeated positionals, or an option toolkiln cannot
spell is refused (the reason says which), so that no argument the program needs is left
out. A name read from prose (`[input pdf]`, BSD's `file`) is a guess, said in the
parameter's description and in a warning.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from toolkiln.conventions.usage.model import UsageOption, UsageText, name_of, unique_name
from toolkiln.conventions.usage.read import guessed_names, read_usage_text
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.model import Parameter

GUESS_NOTE = "[Name guessed by toolkiln from {guess}; rename it in this config if it reads wrong.]"
_HELP = frozenset({"-h", "--help", "--version", "-V", "--usage"})
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
_OPTIONS_UNLISTED = re.compile(r"\[<?(?:options?|opts|flags?|switches)>?\]", re.IGNORECASE)


class Unservable(ValueError):
    """Why help text does not make a tool toolkiln can call correctly."""


def parameters_from_help(text: str, path: str) -> tuple[list[Parameter], list[DiscoveryError], UsageText]:
    """The parameters `text` declares, the guesses as warnings, and the usage read."""
    from toolkiln.conventions.base import make_parameter

    usage = read_usage_text(text)
    if usage is None or not usage.patterns:
        raise Unservable("it has no usage line")
    if not usage.options and any(_OPTIONS_UNLISTED.search(pattern) for pattern in usage.patterns):
        raise Unservable("its usage line takes `[options]` but the text lists none")
    if usage.commands:
        raise Unservable(
            f"it has subcommands ({', '.join(usage.commands[:5])}), which toolkiln does not serve "
            "from help text"
        )
    if any(p.choices for p in usage.positionals):
        raise Unservable("its usage line takes a choice of command words")
    if sum(p.repeated for p in usage.positionals) > 1 or any(p.repeated for p in usage.positionals[:-1]):
        raise Unservable("it takes a repeated argument before others, which cannot be passed in order")
    guesses = guessed_names(usage)
    warnings: list[DiscoveryError] = []
    parameters: list[Parameter] = []
    taken: set[str] = set()
    for option in usage.options:
        if _HELP.intersection(option.names) and not option.takes_value:
            continue
        parameters.append(_option_parameter(option, taken, path))
    for positional in usage.positionals:
        name = unique_name(name_of(positional.text), taken)
        if not _NAME.fullmatch(name):
            raise Unservable(f"its argument {positional.text!r} has no name toolkiln can give")
        description = positional.description
        if name in guesses:
            description = f"{description} {GUESS_NOTE.format(guess='the usage line prose')}".strip()
            warnings.append(
                DiscoveryError(
                    f"parameter {name!r} is named from the prose of its usage line: check it", path=path
                )
            )
        fields: dict[str, object] = {"name": name, "description": description, "option": ""}
        if positional.repeated:
            fields.update(type="array", items="string")
            bounds: dict[str, object] = {"min": 1.0} if not positional.optional else {"default": []}
            fields.update(bounds)
        fields["required"] = not positional.optional
        parameters.append(make_parameter(path, None, **fields))
    return parameters, warnings, usage


def _option_parameter(option: UsageOption, taken: set[str], path: str) -> Parameter:
    from toolkiln.conventions.base import make_parameter

    key = option.key
    if not key:
        raise Unservable("an option has no name")
    name = unique_name(name_of(key.lstrip("-")), taken)
    if not _NAME.fullmatch(name):
        raise Unservable(f"its option {key!r} has no name toolkiln can give")
    fields: dict[str, object] = {"name": name, "description": option.description}
    if not option.takes_value:
        fields.update(type="boolean", default=False, option=key, option_form="flag")
    else:
        fields["option"] = f"{key}=" if option.attached and key.startswith("--") else key
        if option.choices:
            fields["enum"] = list(option.choices)
        if option.required:
            fields["required"] = True
        elif option.default is not None and (not option.choices or option.default in option.choices):
            fields["default"] = option.default
    return make_parameter(path, None, **fields)
