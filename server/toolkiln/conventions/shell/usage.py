"""What a shell script says about itself in prose: its header comment (the description),
TomDoc lines (`# $1 - The branch name.`), and its usage text (`# Usage: prog <input>
[output]`, a `usage()` function's heredoc or echoes) with the option lines under it
(`  -o FILE   Write to FILE`).

Every reading is a line at a time, with string methods or regular expressions anchored
at the start of a line whose parts cannot overlap, so the work grows with the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from toolkiln.conventions.shell.lines import ShellText

DESCRIPTION_LIMIT = 1000
USAGE_LIMIT = 1000  # a usage line's characters read
USAGE_FUNCTIONS = ("usage", "_usage", "show_usage", "print_usage", "help", "show_help", "print_help")
_TOMDOC = re.compile(r"^\$\{?([1-9])\}?[ \t]*[-:=][ \t]+(\S.*)")
_NOT_PROSE = re.compile(
    r"^(?:shellcheck|vim?:|-\*-|copyright|\(c\)|spdx|license|author|set -|!/)", re.IGNORECASE
)
_REDIRECT = re.compile(r"^[12]?>&?[ \t]*(?:&?[12]|/dev/std(?:err|out))?[ \t]+")
_SETTINGS = re.compile(r"^set[ \t]+[-+][\w -]*$")
_SECTION = re.compile(r"^(?:examples?|options|arguments|flags|notes?)\s*:?$", re.IGNORECASE)


@dataclass(frozen=True)
class UsageArgument:
    name: str
    optional: bool
    variadic: bool
    choices: tuple[str, ...] = ()  # `{up,down}` / `(start|stop)`: the words it takes


def header_comment(text: ShellText) -> list[tuple[int, str]]:
    """The comment lines at the top of the script (after its `#!` line), by number."""
    return header_of(line.raw for line in text.lines)


def header_of(lines: Iterable[str]) -> list[tuple[int, str]]:
    header: list[tuple[int, str]] = []
    for number, raw in enumerate(lines, 1):
        stripped = raw.strip()
        if number == 1 and stripped.startswith("#!"):
            continue
        if stripped.startswith("#"):
            header.append((number, stripped.lstrip("#").strip()))
        elif stripped and not _SETTINGS.match(stripped):
            break  # `set -e` above the header comment (a habit) does not end it
    return header


def describe(header: list[tuple[int, str]]) -> str:
    """The header's prose: without usage lines, TomDoc lines, examples, editor and
    linter directives; its paragraphs joined, at most `DESCRIPTION_LIMIT` characters."""
    paragraphs: list[list[str]] = [[]]
    skipping = examples = False  # an Examples section runs on over blank lines (TomDoc)
    for _, comment in header:
        if not comment:
            skipping = examples
            paragraphs.append([])
            continue
        lowered = comment.lower()
        if lowered.startswith("usage") or _SECTION.match(comment) or _TOMDOC.match(comment):
            skipping, examples = True, lowered.rstrip(":") in ("examples", "example")
            continue
        if skipping and _is_sentence(comment) and not _SECTION.match(comment):
            skipping = examples = False  # `# Usage: x <file>` then `# Extract any archive.`: prose again
        if skipping or comment.startswith("-") or _NOT_PROSE.match(comment) or set(comment) <= set("=*#~_ "):
            continue
        paragraphs[-1].append(comment)
    text = "\n\n".join(" ".join(words) for words in paragraphs if words)
    return text if len(text) <= DESCRIPTION_LIMIT else text[: DESCRIPTION_LIMIT - 1].rstrip() + "…"


EXAMPLE_LINES = 5


def header_examples(header: list[tuple[int, str]]) -> list[str]:
    """The command lines under a TomDoc `# Examples` heading (at most `EXAMPLE_LINES`):
    how the author calls the script, shown to the model with its description."""
    found: list[str] = []
    inside = False
    for _, comment in header:
        if not comment:
            continue
        heading = comment.lower().rstrip(":")
        if heading in ("examples", "example"):
            inside = True
            continue
        if inside and (_SECTION.match(comment) or heading.startswith("usage") or _TOMDOC.match(comment)):
            break
        if inside and len(found) < EXAMPLE_LINES:
            found.append(comment[:200])
    return found


def _is_sentence(comment: str) -> bool:
    """Prose: a capital, several words, a full stop (not `-o FILE  Where`, nor a command)."""
    first = comment.split(" ", 1)[0]
    return first[:1].isupper() and not first.isupper() and " " in comment and comment.endswith((".", "!"))


def tomdoc_arguments(header: list[tuple[int, str]]) -> dict[int, str]:
    """`# $1 - The branch name.` lines: position -> description."""
    found: dict[int, str] = {}
    for _, comment in header:
        match = _TOMDOC.match(comment)
        if match:
            found.setdefault(int(match.group(1)), match.group(2).strip())
    return found


def usage_lines(text: ShellText, header: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The usage text: the header's comment lines, then the text a usage function
    prints (its heredocs and `echo`/`printf` strings), then any printed `Usage:` string."""
    found = list(header)
    for name in USAGE_FUNCTIONS:
        if name in text.functions:
            start, end = text.functions[name]
            found += [(line.number, _printed(line.raw, line.heredoc)) for line in text.lines[start - 1 : end]]
            break
    found += [
        (line.number, _printed(line.raw, line.heredoc))
        for line in text.lines
        if "usage" in line.raw.lower() and not line.raw.lstrip().startswith("#")
    ]
    return found


def _printed(raw: str, heredoc: bool) -> str:
    """What an `echo "..."` line prints, roughly; a heredoc line as it is."""
    stripped = raw.strip()
    if heredoc:
        return stripped
    for command in ("echo", "printf"):
        if stripped.startswith(command + " "):
            words = stripped[len(command) :].strip()
            while words.startswith("-") and " " in words and command == "echo":
                words = words.split(" ", 1)[1].lstrip()
            while _REDIRECT.match(words):  # `echo >&2 Usage: ...`
                words = _REDIRECT.sub("", words, count=1)
            words = words.split(">&", 1)[0].strip().strip("\"'")
            return words.replace("\\n", " ").replace("\\t", " ")
    return ""


def usage_line(lines: list[tuple[int, str]]) -> tuple[int, str] | None:
    """The first `Usage: ...` line, as the words after `Usage:`, and its number."""
    for index, (number, line) in enumerate(lines):
        head, colon, rest = line.partition(":")
        if colon and head.strip().lower() == "usage":
            rest = rest.strip()
            if not rest and index + 1 < len(lines):
                number, rest = lines[index + 1][0], lines[index + 1][1].strip()
            return (number, " ".join(rest.split())) if rest else None  # tabs and runs of blanks
    return None


def usage_arguments(usage: str, value_options: frozenset[str]) -> list[UsageArgument]:
    """The positionals a usage line names, in order: `<input>` and `FILE` required,
    `[output]` optional, `files...` variadic, a choice of words (`{up,down}`) with its
    words; options (`[-v]`, `-o FILE`) skipped. Read with the usage grammar (conventions/usage)."""
    from toolkiln.conventions.usage.read import read_usage_text  # only when a script is read

    read = read_usage_text([f"Usage: {usage[:USAGE_LIMIT]}"], value_options)
    if read is None:
        return []
    found: list[UsageArgument] = []
    for positional in read.positionals:
        name = positional.name
        if not name or not name[0].isalpha():
            continue
        found.append(UsageArgument(name, positional.optional, positional.repeated, tuple(positional.choices)))
    return found


def option_help(lines: list[tuple[int, str]]) -> dict[str, str]:
    """`-o, --output FILE   Where to write` lines: each option word -> its text."""
    from toolkiln.conventions.usage.read import read_usage_text

    found: dict[str, str] = {}
    read = read_usage_text([line for _, line in lines])
    for option in read.options if read else []:
        if option.description:
            for name in option.names:
                found.setdefault(name, option.description)
    return found
