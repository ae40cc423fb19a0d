"""How one value becomes words of a script's command line: shared by every convention's
argv builder (each convention's `argv.py`), which import it and not each other."""

from __future__ import annotations

import json
import re
from typing import Any

from toolkiln.errors import ProcessStartError

# What argparse reads as a negative number, not as an option.
_NUMBER = re.compile(r"-\d+(\.\d*)?([eE][-+]?\d+)?|-\.\d+")


def text_form(value: Any) -> str:
    """A JSON value as a script sees it in argv and env: strings bare, the rest as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


def plain_values(name: str, values: list[str]) -> list[str]:
    """`values` when none of them could be read as an option (`--output=/x` after `--tags`
    would set `--output`); otherwise `ProcessStartError`, which names the argument."""
    for value in values:
        if value.startswith("-") and not _NUMBER.fullmatch(value):
            raise ProcessStartError(
                f"argument {name!r}: {value!r} starts with '-', and the script would read it as an "
                "option, not a value",
                about_arguments=True,
            )
    return values


def text_words(value: Any) -> list[str]:
    """A value as the words it fills: a list item by item, anything else one word."""
    return [text_form(item) for item in value] if isinstance(value, list) else [text_form(value)]


def option_word(option: str, value: str) -> str:
    """An option and its value as one word: `--name=value`, or `-nvalue` for a one-letter
    option (click reads `-n=value` as `=value`; argparse and click both read `-nvalue` as `value`)."""
    if len(option) == 2 and option[0] == "-" and option[1] != "-":
        return option + value
    return f"{option}={value}"


def refuse_positional_gap(name: str, missing: str) -> ProcessStartError:
    """The refusal of a positional given after one left out: the script reads its
    arguments by position, so it would read the value as the earlier one."""
    return ProcessStartError(
        f"argument {name!r} is given but {missing!r} before it is not: the script reads its "
        f"arguments by position and would read the value as {missing!r}; give {missing!r} too",
        about_arguments=True,
    )
