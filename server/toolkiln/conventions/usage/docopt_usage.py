"""docopt's usage text, read as docopt reads it (docopt.org; docopt-ng): the `Usage:`
section's patterns, and the option descriptions that say which options take a value and
their `[default: x]`.

    Naval Fate.

    Usage:
      naval_fate.py ship <name> move <x> <y> [--speed=<kn>]
      naval_fate.py mine (set|remove) <x> <y> [--moored | --drifting]

    Options:
      -s KN, --speed=KN  Speed in knots [default: 10].

A pattern is a tree of `Node`s: leaves (a command word, a positional `<arg>`/`ARG`, an
option) under `required` `( )`, `optional` `[ ]`, `either` `|`, `repeat` `...` and the
`[options]` shortcut. The grammar is docopt's own (`parse_expr`, `parse_seq`,
`parse_atom`, `parse_longer`, `parse_shorts` in docopt-ng), written again here: docopt's
public interface is only `docopt()`, its parser functions are not an API to build on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from toolkiln.conventions.usage.tokens import split_pattern

_USAGE_SECTION = re.compile(
    r"\A(?P<before>(?:(?!.*\busage:).*\n)*)^(?P<header>.*\busage:)"
    r"(?P<body>(?:.*(?:\n|\Z))(?:[ \t].*(?:\n|\Z))*)(?P<after>(?:.|\n)*)\Z",
    re.MULTILINE | re.IGNORECASE,
)
_OPTION_START = re.compile(r"^(?:.*options:)?[ \t]*(-\S)", re.MULTILINE | re.IGNORECASE)
_DEFAULT = re.compile(r"\[default: (.*)\]", re.IGNORECASE)
# Real usage lines hold tens of words and a few levels of brackets; a script's text past
# these is refused, so that it can neither exhaust the stack nor hold discovery for minutes.
MAX_WORDS = 2000  # in the usage section
MAX_OPTIONS = 500  # option descriptions
MAX_NESTING = 32  # of ( ) and [ ]


class UsageError(ValueError):
    """Usage text docopt itself would refuse (`DocoptLanguageError`), or none at all."""


@dataclass
class Option:
    """An option as docopt knows it: its short and long forms, whether it takes a
    value, its default (`[default: x]`) and the description beside it."""

    short: str | None = None
    long: str | None = None
    takes_value: bool = False
    default: str | None = None
    description: str = ""

    @property
    def key(self) -> str:
        """What docopt names it in its result (`--speed`, or `-s` without a long form)."""
        return self.long or self.short or ""


@dataclass
class Node:
    kind: Literal["command", "argument", "option", "required", "optional", "either", "repeat", "options"]
    name: str = ""
    option: Option | None = None
    children: list[Node] = field(default_factory=list)


@dataclass
class Pattern:
    """One usage line: its text, its line in the docstring (from 0), and its tree."""

    source: str
    line: int
    node: Node


@dataclass
class Usage:
    """The docstring as docopt reads it: the text before `Usage:`, the program's name, one
    pattern per usage line (with its text), and every option described."""

    before: str
    program: str
    patterns: list[Pattern]
    options: list[Option]


def read_usage(doc: str) -> Usage:
    match = _USAGE_SECTION.match(doc)
    if match is None:
        raise UsageError('it has no "usage:" section')
    body, after = match.group("body"), match.group("after")
    if re.search("options:", body, re.IGNORECASE):
        raise UsageError('"options:" is inside the "usage:" section (end the usage with a blank line)')
    if re.search("usage:", body + after, re.IGNORECASE):
        raise UsageError('it has more than one "usage:" section')
    words = body.split()
    if not words:
        raise UsageError('its "usage:" section is empty')
    if len(words) > MAX_WORDS:
        raise UsageError(f'its "usage:" section has {len(words)} words; toolkiln reads at most {MAX_WORDS}')
    options = [*read_options(match.group("before")), *read_options(after)]
    if len(options) > MAX_OPTIONS:
        raise UsageError(f"it describes {len(options)} options; toolkiln reads at most {MAX_OPTIONS}")
    program = words[0]
    lines: list[tuple[int, list[str]]] = []
    for word in re.finditer(r"\S+", body):
        if word.group() == program:
            lines.append((doc.count("\n", 0, match.start("body") + word.start()), []))
        else:
            lines[-1][1].append(word.group())
    patterns = [
        Pattern(" ".join([program, *line]), offset, parse_pattern(" ".join(line), options))
        for offset, line in lines
    ]
    return Usage(match.group("before"), program, patterns, options)


def read_options(text: str) -> list[Option]:
    """The option descriptions in `text` (a line that starts with `-`, in an `Options:`
    section or not, as docopt-ng reads them): `-s KN, --speed=KN  Speed [default: 10]`."""
    parts = _OPTION_START.split(text)[1:]
    return [_read_option(start + rest) for start, rest in zip(parts[0::2], parts[1::2], strict=True)]


def _read_option(text: str) -> Option:
    forms, description = [*re.split(r"(?:  )|$", text.strip(), flags=re.MULTILINE, maxsplit=1), ""][:2]
    option = Option()
    for word in forms.replace(",", " ").replace("=", " ").split():
        if word.startswith("--"):
            option.long = word
        elif word.startswith("-"):
            option.short = word
        else:
            option.takes_value = True
    if option.takes_value:
        found = _DEFAULT.findall(description)
        option.default = found[0] if found else None
    paragraph = description.strip().split("\n\n")[0]
    option.description = " ".join(line.strip() for line in paragraph.splitlines() if line.strip())
    return option


def parse_pattern(source: str, options: list[Option]) -> Node:
    """One usage line (without the program's name) as a `required` node; options the
    pattern names that no description declares are added to `options`, as docopt does."""
    tokens = split_pattern(source)
    depth = 0
    for token in tokens:
        depth += (token in ("(", "[")) - (token in (")", "]"))
        if depth > MAX_NESTING:
            raise UsageError(f"brackets nested more than {MAX_NESTING} deep in the usage pattern")
    if len(tokens) > 2 * MAX_WORDS:  # `[]()|...` count as words here: each is read in turn
        most = 2 * MAX_WORDS
        raise UsageError(
            f"the usage pattern has {len(tokens)} words, brackets and bars; toolkiln reads at most {most}"
        )
    children = _parse_expr(tokens, options)
    if tokens:
        raise UsageError(f"unexpected {' '.join(tokens)!r} in the usage pattern")
    return Node("required", children=children)


def _parse_expr(tokens: list[str], options: list[Option]) -> list[Node]:
    """expr ::= seq ( '|' seq )*"""
    sequence = _parse_seq(tokens, options)
    if not tokens or tokens[0] != "|":
        return sequence
    branches = [sequence]
    while tokens and tokens[0] == "|":
        tokens.pop(0)
        branches.append(_parse_seq(tokens, options))
    return [
        Node("either", children=[b[0] if len(b) == 1 else Node("required", children=b) for b in branches])
    ]


def _parse_seq(tokens: list[str], options: list[Option]) -> list[Node]:
    """seq ::= ( atom [ '...' ] )*"""
    result: list[Node] = []
    while tokens and tokens[0] not in ("]", ")", "|"):
        atom = _parse_atom(tokens, options)
        if tokens and tokens[0] == "...":
            tokens.pop(0)
            atom = [Node("repeat", children=atom)]
        result += atom
    return result


def _parse_atom(tokens: list[str], options: list[Option]) -> list[Node]:
    token = tokens[0]
    if token in ("(", "["):
        tokens.pop(0)
        children = _parse_expr(tokens, options)
        closing = ")" if token == "(" else "]"
        if not tokens or tokens.pop(0) != closing:
            raise UsageError(f"unmatched {token!r} in the usage pattern")
        return [Node("required" if token == "(" else "optional", children=children)]
    if token == "...":
        raise UsageError("'...' follows nothing in the usage pattern")
    tokens.pop(0)
    if token == "options":
        return [Node("options")]
    if token.startswith("--") and token != "--":
        return [_long_option(token, tokens, options)]
    if token.startswith("-") and token not in ("-", "--"):
        return _short_options(token, tokens, options)
    if (token.startswith("<") and token.endswith(">")) or token.isupper():
        return [Node("argument", name=token)]
    return [Node("command", name=token)]


def _long_option(token: str, tokens: list[str], options: list[Option]) -> Node:
    name, equals, _ = token.partition("=")
    found = [option for option in options if option.long == name]
    if len(found) > 1:
        raise UsageError(f"{name} is described more than once")
    if not found:
        option = Option(long=name, takes_value=bool(equals))
        options.append(option)
        return Node("option", name=option.key, option=option)
    option = found[0]
    if equals and not option.takes_value:
        raise UsageError(f"{name} must not have an argument (its description gives it none)")
    if option.takes_value and not equals:
        if not tokens or tokens[0] in ("--", "|", "]", ")"):
            raise UsageError(f"{name} requires an argument in the usage pattern")
        tokens.pop(0)
    return Node("option", name=option.key, option=option)


def _short_options(token: str, tokens: list[str], options: list[Option]) -> list[Node]:
    nodes, left = [], token[1:]
    while left:
        short, left = f"-{left[0]}", left[1:]
        found = [option for option in options if option.short == short]
        if len(found) > 1:
            raise UsageError(f"{short} is described more than once")
        if not found:
            option = Option(short=short)
            options.append(option)
        else:
            option = found[0]
            if option.takes_value and not left:
                if not tokens or tokens[0] in ("--", "|", "]", ")"):
                    raise UsageError(f"{short} requires an argument in the usage pattern")
                tokens.pop(0)
            if option.takes_value:
                left = ""
        nodes.append(Node("option", name=option.key, option=option))
    return nodes
