"""What usage text declares: its positionals, its options, its subcommands (the words
of several alternative lines), and which of its readings are guesses."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_NAME_CHARS = re.compile(r"[^A-Za-z0-9]+")
# Metavariables that name a number (argparse's `N`, click's `INTEGER`, GNU's `NUM`).
INTEGER_WORDS = frozenset(
    {"N", "NUM", "NUMBER", "INT", "INTEGER", "COUNT", "INTEGER RANGE", "PORT", "SECONDS"}
)
NUMBER_WORDS = frozenset({"FLOAT", "FLOAT RANGE"})


def name_of(text: str) -> str:
    """A parameter name from a usage word: `<input file>` -> `input_file`, `FILE` -> `file`."""
    return _NAME_CHARS.sub("_", text.strip("<>[]{}(). ")).strip("_").lower()[:64]


def unique_name(name: str, taken: set[str]) -> str:
    """`name`, or `name_2`, `name_3`, ... when `taken` has it; added to `taken`."""
    candidate, number = name, 2
    while candidate in taken:
        candidate, number = f"{name}_{number}", number + 1
    taken.add(candidate)
    return candidate


@dataclass
class UsageOption:
    """An option as help text describes it: `-o FILE, --output=FILE  Where [default: x]`."""

    names: list[str] = field(default_factory=list)  # every spelling, short ones first as written
    value: str | None = None  # its metavariable (`FILE`), None for a flag
    attached: bool = False  # written `--output=FILE`: the value in the same word
    optional_value: bool = False  # `--color[=WHEN]`
    default: str | None = None
    choices: tuple[str, ...] = ()
    repeatable: bool = False
    required: bool = False
    negations: tuple[str, ...] = ()  # click's `--shout / --no-shout`
    description: str = ""

    @property
    def takes_value(self) -> bool:
        return self.value is not None

    @property
    def long(self) -> str | None:
        return next((name for name in self.names if name.startswith("--")), None)

    @property
    def short(self) -> str | None:
        return next((name for name in self.names if not name.startswith("--")), None)

    @property
    def key(self) -> str:
        """The spelling to call it by: its long form, else its short one."""
        return self.long or self.short or ""

    @property
    def type_guess(self) -> str | None:
        """The type its metavariable or default suggests (a guess: help text is prose)."""
        word = (self.value or "").strip("<>").upper()
        if word in INTEGER_WORDS:
            return "integer"
        if word in NUMBER_WORDS:
            return "number"
        return None


@dataclass
class UsagePositional:
    """A positional argument a usage line names: `<input>`, `FILE...`, `[output]`."""

    text: str
    optional: bool = False
    repeated: bool = False
    choices: tuple[str, ...] = ()  # `(start|stop)`
    description: str = ""

    @property
    def name(self) -> str:
        return name_of(self.text)


@dataclass
class UsageText:
    """Usage text as read: the program's name, its usage lines (without `usage:`), the
    positionals of the first line, every option (the lines' and the option section's),
    the subcommands (`prog add <x>` / `prog rm <x>`, or a `Commands:` section), and the
    line (from 0) where the usage starts."""

    program: str = ""
    patterns: list[str] = field(default_factory=list)
    positionals: list[UsagePositional] = field(default_factory=list)
    options: list[UsageOption] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    line: int = 0
    # Whether the usage line marks its arguments (`<x>`, `X`), or names them in prose
    # (`[input pdf]`, BSD's `file`): then a positional's name is a guess.
    marked: bool = True

    def option(self, name: str) -> UsageOption | None:
        return next((option for option in self.options if name in option.names), None)
