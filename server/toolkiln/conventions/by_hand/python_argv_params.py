"""The parameters of a Python script that reads `sys.argv` by hand, from what
python_argv_read.py found: one per word, in order, named by the code where it names the
word well and by the usage line (or its place) where not, each such guess said; the rest
of the words as an array; `stdin` for a script that reads it."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from toolkiln.conventions.base import Candidate, NotATool, make_parameter
from toolkiln.conventions.by_hand.python_argv_argv import STDIN_PARAMETER
from toolkiln.conventions.by_hand.python_argv_reading import ArgvReading
from toolkiln.conventions.by_hand.python_argv_usage import UsageWord
from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import PARAM_NAME_PATTERN, is_sensitive_env_name, value_matches_type

if TYPE_CHECKING:
    from toolkiln.model import Parameter

FALLBACK_HINT = (
    "serve it as it is with the fallback (its command line as one `args` array: "
    "`toolkiln fallback on`, or `--fallback` on serve or discover), or declare its parameters "
    "(argparse, click, typer, or `@param` lines; docs/dialects.md)"
)
_POOR_NAMES = {"arg", "args", "argv", "param", "params", "val", "value", "tmp", "item", "items", "_"}
# More words than any script reads by hand: a file asking for more is written to stall a reader.
MAX_WORDS = 100


def positionals(
    path: str, reading: ArgvReading, usage: list[UsageWord], guesses: list[tuple[str, str, int | None]]
) -> list[Parameter]:
    rest = reading.rest
    last = max([*reading.slots, reading.required_words, reading.exact_words or 0, 0])
    if last > MAX_WORDS or (rest is not None and rest.index > MAX_WORDS):
        raise DiscoveryError(
            f"reads word {max(last, rest.index if rest else 0)} of its command line; toolkiln reads at "
            f"most {MAX_WORDS} (declare its parameters with argparse, click or typer)",
            path=path,
            line=max((slot.line for slot in reading.slots.values()), default=None),
        )
    if rest is not None and last >= rest.index:
        if any(index >= rest.index for index in reading.slots):
            raise NotATool(
                f"reads sys.argv[{rest.index}:] and a word within it (sys.argv[{max(reading.slots)}]), "
                f"so toolkiln cannot tell one parameter from the other: {FALLBACK_HINT}",
                kind="argv-by-hand",
            )
        last = rest.index - 1
    required_upto = max(
        [reading.required_words, *(i for i, slot in reading.slots.items() if not slot.optional)], default=0
    )
    parameters: list[Parameter] = []
    taken: set[str] = set()
    for index in range(1, last + 1):
        slot = reading.slots.get(index)
        word = usage[index - 1] if index - 1 < len(usage) and not usage[index - 1].repeated else None
        name = pick_name(slot.name if slot else None, word.name if word else None, f"arg{index}", taken)
        if not good_name(slot.name if slot else None):
            source = "the usage text" if word is not None and name == word.name else "its position"
            guesses.append((name, source, slot.line if slot else None))
        required = index <= required_upto
        type_ = slot.type if slot else "string"
        default = slot.default if slot and not required and slot.default is not None else None
        if default is not None and not value_matches_type(default, type_):
            default = None
        fields = {"type": type_, "required": required, "option": ""}
        parameters.append(
            make_parameter(
                path,
                slot.line if slot else None,
                name=name,
                description=word.text if word else "",
                **fields,
                **({"default": default} if default is not None else {}),
            )
        )
    if rest is not None:
        word = next((w for w in usage[rest.index - 1 :] if w.repeated), None)
        name = pick_name(rest.name, word.name if word else None, "args", taken)
        minimum = reading.required_words - rest.index + 1
        parameters.append(
            make_parameter(
                path,
                rest.line,
                name=name,
                type="array",
                items="string",
                description=word.text if word else "",
                required=minimum > 0 and not rest.optional,
                option="",
                **({"min": float(minimum)} if minimum > 0 else {}),
            )
        )
    return parameters


def pick_name(variable: str | None, usage: str | None, fallback_name: str, taken: set[str]) -> str:
    good = good_name(variable)
    for name in (variable if good else None, usage, fallback_name):
        if name and PARAM_NAME_PATTERN.match(name) and not is_sensitive_env_name(name) and name not in taken:
            name = name if name != STDIN_PARAMETER else f"{name}_path"
            taken.add(name)
            return name
    taken.add(fallback_name)
    return fallback_name


def good_name(name: str | None) -> bool:
    """A variable's name that says what the word is: not `a`, `arg`, `value` or `_max`."""
    return (
        name is not None and len(name) >= 2 and not name.startswith("_") and name.lower() not in _POOR_NAMES
    )


def header_description(module: ast.Module, candidate: Candidate) -> str:
    docstring = (ast.get_docstring(module) or "").strip()
    if docstring:
        return docstring.split("\n\n")[0].strip()
    lines: list[str] = []
    for line in candidate.head.splitlines()[:40]:
        if line.startswith("#!") or re.match(r"#.*coding[:=]", line):
            continue
        if not line.startswith("#"):
            if lines or line.strip():
                break
            continue
        text = line.lstrip("#").strip()
        if not text:
            if lines:
                break
            continue
        lines.append(text)
    return " ".join(lines)
