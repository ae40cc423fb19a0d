"""How arguments reach a docopt script (the python dialect's `docopt` entry): its options
first, then the usage line's words with each argument in its place, as the line reads.

    python3 naval_fate.py --speed=15 ship Guardian move 10 20

(`command` holds the line's words, each `<>` the place of the next positional parameter:
`ship <> move <> <>`; a tool without words has its arguments in order.) docopt reads its
options anywhere on the line, so they go first, which also suits `options_first=True`.

A long option's value is one word, `--speed=15`; a short one's `-s15` (`-s ""` for an
empty value, as `-s` alone would take the next word); a flag is given when true, a count
N times, a repeated option once per item. An argument that starts with `-` (a number
and `-` itself aside) is refused: docopt would read it as an option.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkiln.conventions.words import option_word, plain_values, refuse_positional_gap, text_form, text_words
from toolkiln.interpreters import python_command
from toolkiln.model import CompiledTool, Parameter

SLOT = "<>"


def docopt_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    options: list[str] = []
    places: list[list[str]] = []
    missing: str | None = None
    for param in tool.parameters:
        if param.option is None:
            continue
        if param.option != "":
            if param.name in arguments and arguments[param.name] != param.default:
                options += _option_words(param, arguments[param.name])
            continue
        if param.name not in arguments:
            missing = missing or param.name
            places.append([])
            continue
        if missing is not None:
            raise refuse_positional_gap(param.name, missing)
        value = arguments[param.name]
        words = text_words(value)
        plain_values(param.name, [word for word in words if word != "-"])  # `-` is stdin's, an argument
        places.append(words)
    template = (tool.command or "").split() or [SLOT] * len(places)
    line: list[str] = []
    for word in template:
        line += (places.pop(0) if places else []) if word == SLOT else [word]
    return [*python_command(script), str(script), *options, *line]


def _option_words(param: Parameter, value: Any) -> list[str]:
    option = param.option or ""
    if param.option_form == "flag":
        return [option] if value else []
    if param.option_form == "count":
        return [option] * int(value)
    values = value if param.option_form == "repeat" else [value]
    words: list[str] = []
    for item in values:
        text = text_form(item)
        # `-n ""` stays two words: `-n` alone would take the next word as its value.
        words += [option_word(option, text)] if text or option.startswith("--") else [option, ""]
    return words
