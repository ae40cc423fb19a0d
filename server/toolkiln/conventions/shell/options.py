"""A shell script's options, as its own option loop reads them:

    while getopts "vo:" opt; do            while [ $# -gt 0 ]; do
      case $opt in                           case "$1" in
        v) verbose=1 ;;                        -e|--edit) edit=1; shift ;;
        o) out="$OPTARG" ;;                    -n|--name) name="$2"; shift 2 ;;
      esac                                     --name=*) name="${1#*=}"; shift ;;
    done                                       --) shift; break ;;
                                               *) args+=("$1"); shift ;;
                                             esac
                                           done

An option takes a value when its arm reads one (`$OPTARG`, `$2`, `shift 2`, `${1#*=}`);
its description is the arm's comment or its line in the usage text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from toolkiln.conventions.shell.lines import ShellLine, ShellText
from toolkiln.errors import DiscoveryError

_GETOPTS = re.compile(r"(?<![\w-])getopts[ \t]+(\S+)[ \t]+([A-Za-z_]\w*)")
_CASE = re.compile(r"^case[ \t]+\"?\$\{?([1-9]|[A-Za-z_]\w*)(?::?-[^}\s\"]*)?\}?\"?[ \t]+in(?![\w-])")
_FOR = re.compile(r"^for[ \t]+([A-Za-z_]\w*)(?:[ \t]*(?:;|$)|[ \t]+in[ \t]+\"\$(?:@|\{@\})\")")
_ARM = re.compile(r"^\(?([^()]*)\)")
_ASSIGNED = re.compile(r"(?<![\w$])([A-Za-z_]\w*)=\"?\$\{?(1|2|OPTARG)(?![\w])")
_MAX_DISPATCH = 50
_HELP_WORDS = ("h", "-h", "--help", "-help", "help", "--version", "-V", "V")
_ALWAYS_HELP = ("--help", "-help", "help", "--version")


def _is_help(patterns: list[str], body: str) -> bool:
    """`-h|--help) usage; exit 0`: not a parameter. `-h` alone is help only when its arm
    prints and exits without reading a value (`-h|--host) host="$2"` is an option)."""
    if any(pattern in _ALWAYS_HELP for pattern in patterns):
        return True
    reads = "$2" in body or "OPTARG" in body or "shift" in body
    return any(p in _HELP_WORDS for p in patterns) and "exit" in body and not reads


@dataclass
class ShellOption:
    name: str
    option: str  # the word the script reads: `-o`, `--name`, or `--name=` (value joined)
    takes_value: bool
    line: int
    variable: str | None = None
    comment: str = ""


@dataclass
class OptionLoop:
    start: int
    end: int
    options: list[ShellOption] = field(default_factory=list)
    separator: bool = False  # `--` ends the options (getopts does, or a `--)` arm)
    collects: bool = False  # a catch-all arm keeps the other words (`args+=("$1")`)
    stops: bool = False  # a catch-all arm `break`s: the other words follow in `$1`...
    named: list[tuple[str, int]] = field(default_factory=list)  # `*) file="$1"` in the catch-all


def option_loops(text: ShellText, script_scope: set[int]) -> list[OptionLoop]:
    """The getopts and `case "$1"` loops at the script's own level (not in a helper function)."""
    found: list[OptionLoop] = []
    for line in text.lines:
        if len(found) > 2:
            raise DiscoveryError(
                "it has more than two option loops; toolkiln reads one", path="", line=line.number
            )
        if line.number not in script_scope or line.heredoc:
            continue
        source = _source(line)
        match = _GETOPTS.search(source) if "getopts" in source else None
        if match and line.loop:
            found.append(_getopts_loop(text, line, match))
            continue
        case = _CASE.match(source.strip()) if "case" in line.bare else None
        if case and line.loop and not any(loop.start <= line.number <= loop.end for loop in found):
            loop_start = line.loop
            subject = case.group(1)
            if subject == "1" or subject == _for_variable(text.lines[loop_start - 1]):
                found.append(_case_loop(text, line.number, loop_start))
    return found


def _source(line: ShellLine) -> str:
    """The line's code as written (single-quoted text kept), without its comment."""
    return line.raw[: len(line.code)]


def _case_subject(line: ShellLine) -> str | None:
    match = _CASE.match(_source(line).strip())
    return match.group(1) if match else None


def _for_variable(line: ShellLine) -> str | None:
    match = _FOR.match(_source(line).strip())
    return match.group(1) if match else None


def _arms(text: ShellText, case_start: int) -> list[tuple[list[str], str, int, str]]:
    """A `case` block's arms: (patterns, body code, line, comment)."""
    arms: list[tuple[list[str], str, int, str]] = []
    end = text.cases.get(case_start, case_start)
    body: list[str] | None = None
    for line in text.lines[case_start : end - 1]:
        own = line.case == case_start or (
            text.case_parents.get(line.case or 0) == case_start and "esac" in line.bare
        )
        if body is None:
            match = _ARM.match(_source(line).strip()) if own else None
            if match is None:
                continue
            patterns = [word.strip().strip("\"'") for word in match.group(1).split("|")]
            rest = line.code.strip()[match.end() :]
            body = [rest]
            arms.append((patterns, "", line.number, line.comment))
        else:
            body.append(line.code)
        if own and (";;" in line.bare or ";&" in line.bare):
            arms[-1] = (arms[-1][0], "\n".join(body), arms[-1][2], arms[-1][3])
            body = None
    if body is not None and arms:
        arms[-1] = (arms[-1][0], "\n".join(body), arms[-1][2], arms[-1][3])
    return arms


def _getopts_loop(text: ShellText, line: ShellLine, match: re.Match[str]) -> OptionLoop:
    optstring, variable = match.group(1).strip("\"'"), match.group(2)
    if "$" in optstring or not optstring.lstrip(":"):
        raise DiscoveryError(
            f"its getopts option string {match.group(1)} is made when it runs, so toolkiln cannot "
            'read its options; write the letters out (`getopts "vo:" opt`)',
            path="",
            line=line.number,
        )
    letters: dict[str, bool] = {}
    for index, char in enumerate(optstring):
        if char != ":":
            letters[char] = optstring[index + 1 : index + 2] == ":"
    start = line.loop or line.number
    loop = OptionLoop(start, text.loops.get(start, start), separator=True)
    case_start = next(
        (
            inner.number
            for inner in text.lines[start - 1 : loop.end]
            if inner.case == inner.number and _case_subject(inner) == variable
        ),
        None,
    )
    if case_start is not None:
        for patterns, body, number, comment in _arms(text, case_start):
            for letter in patterns:
                if letter in letters and not _is_help([letter], body):
                    assigned = _ASSIGNED.search(body)
                    loop.options.append(
                        ShellOption(
                            letter,
                            f"-{letter}",
                            letters[letter],
                            number,
                            assigned.group(1) if assigned else None,
                            comment,
                        )
                    )
    return loop


def _case_loop(text: ShellText, case_start: int, loop_start: int) -> OptionLoop:
    loop = OptionLoop(loop_start, text.loops.get(loop_start, loop_start))
    by_name: dict[str, ShellOption] = {}
    for patterns, body, number, comment in _arms(text, case_start):
        if patterns == ["--"]:
            loop.separator = True
        elif patterns == ["*"] or patterns == ["*)"]:
            loop.stops = "break" in body
            loop.collects = "+=" in body or "set --" in body
            loop.named += [(m.group(1), number) for m in _ASSIGNED.finditer(body) if m.group(2) == "1"]
        elif all(p.startswith("-") for p in patterns) and not _is_help(patterns, body):
            option = _case_option(patterns, body, number, comment)
            if option is None:
                continue  # `-*)`: an unknown option
            known = by_name.get(option.name)
            if known is None:
                by_name[option.name] = option
                loop.options.append(option)
            elif option.option.endswith("="):  # `--name=*` beside `--name`: the joined form
                known.option, known.takes_value = option.option, True
    return loop


def _case_option(patterns: list[str], body: str, number: int, comment: str) -> ShellOption | None:
    plain = [p for p in patterns if not any(c in p for c in "*?[")]
    joined = [p[:-1] for p in patterns if p.endswith("=*") and p.count("*") == 1 and len(p) > 3]
    if not plain and not joined:
        return None
    words = plain or joined
    longest = max(words, key=len)
    name = longest.lstrip("-").rstrip("=").replace("-", "_")
    if not name or not (name[0].isalpha() or name[0] == "_"):
        return None
    reads_next = "$2" in body or "${2" in body or "shift 2" in body or _shift_then_first(body)
    if joined and not plain:
        option, takes_value = longest, True
    else:
        option, takes_value = longest, reads_next or "${1#" in body
        if "${1#" in body and not reads_next:
            option = longest.rstrip("=") + "="
    assigned = _ASSIGNED.search(body)
    return ShellOption(name, option, takes_value, number, assigned.group(1) if assigned else None, comment)


def _shift_then_first(body: str) -> bool:
    """`-o) shift; out="$1"`: the arm shifts, then reads the next word."""
    _, shifted, rest = body.partition("shift")
    return bool(shifted) and ("$1" in rest or "${1" in rest)


def dispatch_words(text: ShellText, script_scope: set[int], skipped: set[int]) -> dict[str, list[str]]:
    """`case "$1" in start) ... stop) ... *) usage; exit 1` outside a loop: the words a
    positional (`1`, or the variable bound to one) may be, by subject. A catch-all arm that
    does not refuse other words (exit, usage) makes none."""
    found: dict[str, list[str]] = {}
    outermost = [start for start, parent in text.case_parents.items() if parent is None]
    for start in outermost[:_MAX_DISPATCH]:  # outermost blocks never overlap: each line read once
        line = text.lines[start - 1]
        if start not in script_scope or start in skipped or line.loop is not None:
            continue
        subject = _case_subject(line)
        if subject is None or subject in found:
            continue
        words: list[str] = []
        for patterns, body, _, _ in _arms(text, start):
            if patterns in (["*"], ["*)"]):
                if not any(word in body for word in ("exit", "usage", "die", ">&2", "return 1")):
                    words = []
                    break
                continue
            words += [p for p in patterns if p and p not in _HELP_WORDS and not any(c in p for c in "*?[$-")]
        if words:
            found[subject] = list(dict.fromkeys(words))
    return found
