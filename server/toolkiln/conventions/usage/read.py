"""Find the usage text in any text and read it whole: the `Usage:` line(s) (GNU's
`  or:` lines, docopt's one line per alternative, argparse's wrapped lines), the program
named first, and the option section wherever it is.

    Usage: backup [-n] [-d DEST] SOURCE...
      or:  backup --list
    Options:
      -d, --dest=DIR   Where to copy [default: /mnt/backup]
      -n               Only say what would be copied

gives the positionals `source` (required, repeated), the options `-d/--dest` (a value,
its default) and `-n` (a flag). The text is cut to `MAX_CHARS` and `MAX_LINES`, and
each line to `MAX_LINE`, before it is read.
"""

from __future__ import annotations

from collections.abc import Iterable

from toolkiln.conventions.usage.model import UsageOption, UsagePositional, UsageText, name_of
from toolkiln.conventions.usage.options import read_options
from toolkiln.conventions.usage.synopsis import Synopsis, read_synopsis

MAX_CHARS = 64 * 1024
MAX_LINES = 2000
MAX_LINE = 1000
MAX_PATTERNS = 40
_INTERPRETERS = frozenset(
    {"python", "python3", "python2", "node", "bash", "sh", "zsh", "perl", "ruby", "deno", "bun"}
)
_PROGRAM_HINTS = ("$0", "%s", "{", ".py", ".sh", ".js", "%(prog)s", "PROG", "$ME", "${0")
_HELP_ONLY = frozenset({"-h", "--help", "--version", "-V", "-v", "--usage"})


def read_usage_text(
    text: str | Iterable[str], value_options: frozenset[str] = frozenset()
) -> UsageText | None:
    """The usage in `text` (a string, or its lines), None when it has neither a usage
    line nor an option line. `value_options` are options known (from the script's own
    code) to take a value."""
    lines = _lines(text)
    found = find_usage(lines)
    options, argument_texts, commands = read_options(lines)
    if found is None and not options:
        return None
    usage = UsageText(options=options, commands=list(commands))
    known = {name: option for option in options for name in option.names}
    for name in value_options:
        known.setdefault(name, UsageOption(names=[name], value="VALUE"))
    if found is not None:
        usage.line, usage.program, usage.patterns = found
        synopses = [read_synopsis(pattern, known) for pattern in usage.patterns]
        chosen = _chosen(synopses)
        if chosen is not None:
            usage.positionals = _merged_positionals(chosen.positionals)
            usage.marked = chosen.marked
        for synopsis in synopses:
            _merge_options(usage, synopsis, primary=synopsis is chosen)
        firsts = [s.commands[0] for s in synopses if s.commands]
        if len(set(firsts)) > 1:
            usage.commands += [word for word in dict.fromkeys(firsts) if word not in usage.commands]
    for positional in usage.positionals:
        positional.description = argument_texts.get(positional.text.lower(), "") or argument_texts.get(
            positional.name, ""
        )
    return usage


def _lines(text: str | Iterable[str]) -> list[str]:
    if isinstance(text, str):
        text = text[:MAX_CHARS].splitlines()
    lines: list[str] = []
    for line in text:
        if len(lines) >= MAX_LINES:
            break
        lines.append(line[:MAX_LINE])
    return lines


def find_usage(lines: list[str]) -> tuple[int, str, list[str]] | None:
    """(its line, the program, the patterns without the program) of the first usage."""
    for index, raw in enumerate(lines):
        rest = _after_usage(raw)
        if rest is None:
            continue
        patterns: list[str] = [rest] if rest else []
        for following in lines[index + 1 :]:
            stripped = _uncommented(following)
            if not stripped or len(patterns) >= MAX_PATTERNS:
                break
            lowered = stripped.lower()
            if lowered.startswith("or:") or lowered.startswith("or "):
                patterns.append(stripped[3:].strip())
            elif patterns and _program(patterns[0])[0] == _program(stripped)[0]:
                patterns.append(stripped)
            elif following[:1] in (" ", "\t") and not stripped.startswith("-"):
                if patterns:
                    patterns[-1] += " " + stripped
                else:
                    patterns.append(stripped)
            else:
                break
        if not patterns:
            continue
        program = _program(patterns[0])[0]
        return index, program, [_program(pattern)[1] for pattern in patterns]
    return None


def _uncommented(line: str) -> str:
    return line.strip().lstrip("#/*").strip() if line.lstrip().startswith(("#", "//", "* ")) else line.strip()


def _after_usage(raw: str) -> str | None:
    """The text after `Usage:` on a usage line (maybe empty); None on any other line."""
    stripped = _uncommented(raw).strip("\"'`")
    if stripped[:5].lower() != "usage":
        at = stripped.lower().find("usage:")  # `echo "usage: ..."`, `die("Usage: ...")`
        if at < 0 or stripped[at - 1 : at] not in ("'", '"', "`", " "):
            return None
        quote = stripped[at - 1]
        stripped = stripped[at:]
        if quote in "'\"`" and quote in stripped:
            stripped = stripped[: stripped.rfind(quote)]
    rest = stripped[5:]
    if rest.startswith(":"):
        return rest[1:].strip().strip("\"'`")
    if not rest.startswith((" ", "\t")):
        return None
    rest = rest.strip()
    return rest if any(hint in rest.split(" ", 1)[0] for hint in _PROGRAM_HINTS) else None


def _program(pattern: str) -> tuple[str, str]:
    """The program's name at the start of a usage pattern (`$(basename "$0")`, `%s`,
    `python3 tool.py`), and the rest."""
    text = pattern.strip()
    if text.startswith(("$(", "`")):
        end = text.find(")" if text.startswith("$(") else "`", 1)
        end = end if end > 0 else len(text) - 1
        return text[: end + 1], text[end + 1 :]
    first, _, rest = text.partition(" ")
    if first.rsplit("/", 1)[-1] in _INTERPRETERS and rest and not rest.startswith(("-", "[", "<")):
        second, _, rest = rest.strip().partition(" ")
        first = f"{first} {second}"
    return first, rest


def _chosen(synopses: list[Synopsis]) -> Synopsis | None:
    """The first usage line that is not only `-h | --help` or `--version`."""
    for synopsis in synopses:
        names = {name for option in synopsis.options for name in option.names}
        if synopsis.positionals or synopsis.commands or not names <= _HELP_ONLY:
            return synopsis
    return synopses[0] if synopses else None


def _merged_positionals(positionals: list[UsagePositional]) -> list[UsagePositional]:
    """argparse's `FILES [FILES ...]` is one repeated positional, not two."""
    merged: list[UsagePositional] = []
    for positional in positionals:
        if merged and merged[-1].name == positional.name and positional.repeated:
            merged[-1].repeated = True
            continue
        if any(existing.name == positional.name and positional.name for existing in merged):
            positional = UsagePositional(f"{positional.text} {len(merged) + 1}", positional.optional,
                                         positional.repeated, positional.choices)  # fmt: skip
        merged.append(positional)
    return merged


def _merge_options(usage: UsageText, synopsis: Synopsis, *, primary: bool) -> None:
    for found in synopsis.options:
        described = next((o for o in usage.options for name in found.names if name in o.names), None)
        if described is None:
            found.required = found.required and primary
            usage.options.append(found)
            continue
        described.required = described.required or (found.required and primary)
        described.repeatable = described.repeatable or found.repeatable
        if described.value is None and found.value is not None:
            described.value, described.attached = found.value, found.attached


def guessed_names(usage: UsageText) -> set[str]:
    """The positionals whose name is toolkiln's reading of prose (`[input pdf]`, BSD's
    `file`), not an argument the author marked (`<input>`, `INPUT`)."""
    return set() if usage.marked else {name_of(p.text) for p in usage.positionals}
