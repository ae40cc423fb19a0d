"""The positional arguments a shell script reads at its own level: `$1`, `name="$1"`,
`${1:?message}` (required), `${2:-default}` (optional), `shift` between them, `"$@"`
and `for name; do` (the rest, as a list), `"$*"` (the rest, as one text), `${@:2}` (the
rest from the second word), and `[ $# -lt 2 ]` (how many are
required). Lines inside the option loop, a helper function or a quoted heredoc are not
the script's own arguments.

Each line is read once with regular expressions that cannot backtrack (every `${`'s end
is looked for within a short window), so the work grows with the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from toolkiln.conventions.shell.lines import ShellText
from toolkiln.errors import DiscoveryError

_REFERENCE = re.compile(r"(?<!\\)\$(\{?)([1-9@*#])")
_BOUND = re.compile(
    r"(?:^|(?<=[\s;&|(]))(?:(?:local|readonly|declare|export|typeset)[ \t]+(?:-\w+[ \t]+)?)?"
    r"([A-Za-z_]\w*)=\"?\$\{?([1-9*])"
)
_FLAG_TEST = re.compile(
    r"^[ \t]*if[ \t]+\[\[?[ \t]+\"?\$\{?1\}?\"?[ \t]+==?[ \t]+"
    r"[\"']?(-[A-Za-z0-9]|--[A-Za-z][\w-]*)[\"']?[ \t]+\]\]?"
)
_FLAG_BLOCK = 8
_SLICE = re.compile(r":[ \t]*([1-9])[ \t]*\}")
# `for name; do` / `for name do`: a loop over the script's arguments ("$@" implied).
_FOR_ARGUMENTS = re.compile(r"(?:^|(?<=[\s;&|(]))for[ \t]+([A-Za-z_]\w*)[ \t]*(?:;|$|do\b)")
_SHIFT = re.compile(r"(?<![\w-])shift(?![\w-])[ \t]*([^ \t;&|)]*)")
_SET_ARGS = re.compile(r"(?<![\w-])set[ \t]+--")
_COUNT = re.compile(r"\$\{?#\}?\"?[ \t]*(-lt|-le|-ne|-eq|<=|<|!=)[ \t]*\"?(\d+)")
_HELP_CHECK = ("-h", "--help", "-help")
_WINDOW = 256


@dataclass
class Positional:
    position: int
    line: int
    name: str | None = None
    required: bool | None = None  # None: nothing says
    default: str | None = None
    message: str = ""  # `${1:?message}`
    tested: bool = False  # `[ -n "$2" ]`: the script asks whether it was given


@dataclass
class Positionals:
    by_position: dict[int, Positional] = field(default_factory=dict)
    rest: int | None = None  # `"$@"`: the words from this position on
    rest_line: int = 0
    joined: bool = False  # the rest as one text (`"$*"`), not a list
    rest_name: str | None = None
    required_count: int = 0  # `[ $# -lt 2 ] && usage`
    counted: bool = False  # reads `$#` (outside an option loop)
    flags: list[tuple[str, int]] = field(default_factory=list)  # `if [ "$1" = -w ]; then ...; shift; fi`


def read_positionals(text: ShellText, scope: set[int], skipped: set[int], path: str) -> Positionals:
    """The positionals read on the lines in `scope` outside `skipped` (option loops)."""
    found = Positionals()
    offset = 0
    flag_lines = _flag_tests(text, scope, skipped, found)
    for line in text.lines:
        if line.number not in scope or line.number in skipped or not line.code or line.number in flag_lines:
            continue
        code = line.code
        for match in _COUNT.finditer(code):
            operator, count = match.group(1), int(match.group(2))
            need = {"-lt": count, "<": count, "-le": count + 1, "<=": count + 1, "-ne": count, "!=": count}
            needed = need.get(operator, 1 if count == 0 else 0)  # `-eq 0`: at least one
            if needed:
                found.required_count = max(found.required_count, offset + needed)
        if "$" in code:
            _read_references(code, line.number, offset, found)
        if "for" in code:
            loop = _FOR_ARGUMENTS.search(code)
            if loop and (found.rest is None or offset + 1 < found.rest):
                found.rest, found.rest_line, found.rest_name = offset + 1, line.number, loop.group(1)
                found.joined = False
        if "shift" in line.bare or "set" in line.bare:
            offset = _shifted(line.bare, code, offset, line.number, path)
    return found


def _read_references(code: str, number: int, offset: int, found: Positionals) -> None:
    names = {int(m.group(2)): m.group(1) for m in _BOUND.finditer(code) if m.group(2) != "*"}
    help_check = any(word in code for word in _HELP_CHECK)
    for match in _REFERENCE.finditer(code):
        braced, what = match.group(1), match.group(2)
        if what == "#":
            found.counted = found.counted or not braced or code[match.end() : match.end() + 1] == "}"
            continue
        if what in "@*":
            start = offset + _slice_start(code[match.end() : match.end() + 8] if braced else "")
            if found.rest is None or start < found.rest:
                found.rest, found.rest_line = start, number
                quoted = code[match.start() - 1 : match.start()] == '"'
                bound = next((m.group(1) for m in _BOUND.finditer(code) if m.group(2) == "*"), None)
                found.joined = what == "*" and (quoted or bound is not None)
                found.rest_name = bound
            continue
        if help_check and int(what) == 1 and "=" not in code.split("$", 1)[0][-2:]:
            continue  # `[ "$1" = "--help" ] && usage`: not an argument of its own
        position = offset + int(what)
        entry = found.by_position.setdefault(position, Positional(position, number))
        if int(what) in names and entry.name is None:
            entry.name = names[int(what)]
        if braced:
            _read_expansion(code[match.end() : match.end() + _WINDOW], entry)
        before = code[max(0, match.start() - 6) : match.start()].rstrip('"').rstrip()
        if before.endswith("-n"):
            entry.tested = True  # `[ -n "$2" ]`: optional, unless a usage line or `$#` says otherwise


def _flag_tests(text: ShellText, scope: set[int], skipped: set[int], found: Positionals) -> set[int]:
    """`if [ "$1" = "-w" ]; then word=-w; shift; fi` before the positionals: an optional
    flag the script takes first (passed first, as options are), not a positional. The
    lines of each such block, which neither read nor shift the positionals."""
    taken: set[int] = set()
    for line in text.lines:
        if line.number not in scope or line.number in skipped or "if" not in line.bare:
            continue
        match = _FLAG_TEST.search(line.code)
        if not match:
            continue
        block = _if_block(text, line.number)
        if block is None or not any(_SHIFT.search(text.lines[n - 1].bare) for n in block):
            continue
        found.flags.append((match.group(1), line.number))
        taken.update(block)
    return taken


def _if_block(text: ShellText, start: int) -> list[int] | None:
    """The lines from an `if` to its `fi` (a short block, no `if` nested), or None."""
    lines: list[int] = []
    for line in text.lines[start - 1 : start - 1 + _FLAG_BLOCK]:
        lines.append(line.number)
        words = line.bare.replace(";", " ").split()
        if line.number > start and "if" in words:
            return None
        if "fi" in words:
            return lines
    return None


def _slice_start(after: str) -> int:
    """`${@:2}` / `${*:2}`: the words from the second on; `${@}`: from the first."""
    match = _SLICE.match(after)
    return int(match.group(1)) if match else 1


def _read_expansion(after: str, entry: Positional) -> None:
    """`}`, `:?msg}`, `:-default}`, `#*=}` ... after `${N`."""
    end = after.find("}")
    inner = after[:end] if end >= 0 else ""
    if inner.startswith((":?", "?")):
        entry.required = True
        entry.message = inner.lstrip(":?").strip("\"' ")
    elif inner.startswith((":-", "-", ":=", "=")):
        value = inner[2:] if inner.startswith(":") else inner[1:]
        if entry.required is not True:
            entry.required = False
        if "$" not in value and "`" not in value and entry.default is None:
            entry.default = value.strip("\"'")
    # `${1}`, `${1%/*}`, `${1#*/}`: the value is used, but nothing says it must be given
    # (the usage line or a `$#` check says so, else the argument is taken as required).


def _shifted(bare: str, code: str, offset: int, number: int, path: str) -> int:
    if _SET_ARGS.search(bare):
        return 0  # `set -- "${args[@]}"`: the words kept by the option loop, from `$1` again
    for match in _SHIFT.finditer(code):
        amount = match.group(1).strip("\"'")
        if not amount:
            offset += 1
        elif amount.isdigit():
            offset += int(amount)
        elif "OPTIND" in amount:
            offset = 0  # getopts' options are gone: `$1` is the first positional
        else:
            raise DiscoveryError(
                f"it shifts its arguments by {amount}, which only running it tells, so toolkiln "
                "cannot tell which argument each `$N` after it is",
                path=path,
                line=number,
            )
    return offset
