"""What reading a hand-written `sys.argv` script finds (`python_argv_read.py` reads it):
the words it takes, each a `Slot`, and what else it does with its command line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolkiln.vocabulary import ParamType


@dataclass
class Slot:
    """One word of the command line (`sys.argv[index]`), or every word from `index` on (`rest`)."""

    index: int
    line: int
    name: str | None = None
    type: ParamType = "string"
    optional: bool = False
    default: Any = None
    rest: bool = False


@dataclass
class ArgvReading:
    slots: dict[int, Slot] = field(default_factory=dict)
    rest: Slot | None = None
    # Words after the program name the script insists on (`len(sys.argv) != 3` says 2).
    required_words: int = 0
    # Exactly this many words (`_, a, b = sys.argv`, `len(sys.argv) != 3`).
    exact_words: int | None = None
    reads_argv: bool = False
    reads_stdin: bool = False
    checks_tty: bool = False
    asks: str | None = None
    problems: list[tuple[int, str]] = field(default_factory=list)
    strings: list[str] = field(default_factory=list)

    def add_slot(
        self, index: int, line: int, name: str | None = None, *, guarded: bool = False, **fields: Any
    ) -> None:
        """Word `index` read at `line` (as `name`, with `fields` the reader learnt: its type,
        a default); optional when read only under a guard (`if len(sys.argv) > N`)."""
        if index == 0:
            return  # the program's own name
        slot = self.slots.setdefault(index, Slot(index=index, line=line))
        slot.name = slot.name or name
        for key, value in fields.items():
            if value not in (None, False, "string"):
                setattr(slot, key, value)
        if guarded and not fields.get("optional"):
            slot.optional = True

    def add_rest(self, start: int, line: int, name: str, optional: bool = False) -> None:
        """Every word from `start` on, read at `line`: once (a second, other start is a problem)."""
        if self.rest is not None and self.rest.index != start:
            self.problems.append((line, "reads the rest of its command line twice"))
            return
        self.rest = self.rest or Slot(
            index=start, line=line, name=name, type="array", optional=optional, rest=True
        )

    def set_exact(self, words: int) -> None:
        """Exactly `words` words after the program's name (`_, a, b = sys.argv`)."""
        self.exact_words = words
        self.required_words = max(self.required_words, words)
