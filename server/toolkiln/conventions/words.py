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
