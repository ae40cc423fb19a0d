"""Shell scripts written for no framework, read from their own text (never run):

    #!/bin/bash
    # Resize images for the web.
    # Usage: resize [-q] [-o DIR] <image> [width]
    while getopts "qo:" opt; do
      case $opt in
        q) quiet=1 ;;          # print nothing
        o) out="$OPTARG" ;;    # where to write
      esac
    done
    shift $((OPTIND - 1))
    image="${1:?an image}"
    width="${2:-800}"

is a tool with a boolean `q`, a string `o`, a required `image` and an optional `width`
(default 800), described by its header comment. `while [ $# -gt 0 ]; case "$1" in`
loops, TomDoc lines (`# $1 - The branch name.`), `usage()` texts, scripts that take no
argument and scripts that read stdin (a `stdin` parameter) are read too. How the arguments
reach the script is `conventions/shell/argv.py`: each option as the script reads it (`-o value`,
`--name value`, `--name=value`), positionals in order, the `stdin` text on stdin.

A script whose arguments cannot all be read (`"$@"` handed on to another program, a
`shift` by a computed amount) is not served: its reason names the line.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from toolkiln.conventions.base import Candidate, Declaration, NotATool, read_unframed
from toolkiln.conventions.fallback import read as fallback
from toolkiln.conventions.shell.lines import ShellText, read_shell
from toolkiln.conventions.shell.options import OptionLoop, dispatch_words, option_loops
from toolkiln.conventions.shell.params import parameters_of
from toolkiln.conventions.shell.positionals import Positional, Positionals, read_positionals
from toolkiln.conventions.shell.stdin import stdin_line
from toolkiln.conventions.shell.usage import describe, header_comment, header_examples, header_of
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.conventions.base import Probe

CLAIM_IS_CERTAIN = True  # the script is read, never run
MAX_SCRIPT_BYTES = 2 * 1024 * 1024
# Longer scripts are programs, not tools; the bound keeps a reading of any file short.
MAX_LINES = 10_000
# And each quote, `$`, escape and keyword costs a step of Python: a script of 10,000 lines
# has a few tens of thousands; a file made of nothing else is refused before it is read.
MAX_MARKS = 60_000
_MARKS = (
    "\"", "'", "\\", "$", "#", "cat", "read", "case", "esac", "shift", "getopts", "<<", "usage", "Usage",
    "(", "{", "do", "while", "until", "for", "select",
)  # fmt: skip
_SHELL_SUFFIXES = {".sh", ".bash", ".zsh", ".ksh", ".dash"}
_NOT_SCRIPTS = {".json", ".md", ".txt", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".lock", ".pyc", ".csv"}
# A help-json script answers `--help` with its JSON: help-json reads it, by running it.
_HELP_JSON = re.compile(r'"(?:description|value_type|input_schema)"')
_DEFINITION = re.compile(r"^(?:(?:export|readonly|declare|local|typeset)[ \t]+)?[A-Za-z_]\w*=|^set[ \t]+[-+]")
_READS_ARGUMENTS = re.compile(
    r"\$\{?[1-9@*#]|(?<![\w-])(?:getopts|shift)(?![\w-])|(?<![\w-])for[ \t]+[A-Za-z_]\w*[ \t]*(?:;|$|do\b)",
    re.MULTILINE,
)
_ASSIGNS = re.compile(r"^(?:(?:local|declare|readonly|export|typeset)[ \t]+(?:-\w+[ \t]+)*)?[A-Za-z_]\w*=")
_CALLS_WITH_ARGS = re.compile(r"^(?:exec[ \t]+)?([A-Za-z_][\w:.-]*)[ \t]+\"\$(?:@|\{@\})\"")


def claims(candidate: Candidate) -> bool:
    """An executable shell script (by its `#!` line or its extension) that is not written
    for help-json and not opted in to the fallback (the user asked for its `args` there),
    and that reads arguments or says what it does in a header comment (one that does
    neither is left to the `--help` probe, as before)."""
    if not candidate.executable or candidate.path.suffix.lower() in _NOT_SCRIPTS:
        return False
    if candidate.script_type != "shell" and candidate.path.suffix.lower() not in _SHELL_SUFFIXES:
        return False
    head = candidate.head
    if not head or ("--help" in head and _HELP_JSON.search(head)):
        return False
    if not _READS_ARGUMENTS.search(head) and not describe(header_of(head.split("\n", 200)[:200])):
        return False  # takes nothing and says nothing: what it does is not written anywhere
    return not fallback.opted_in(candidate)


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    path = candidate.relative_path
    source = read_unframed(candidate, MAX_SCRIPT_BYTES, "a shell script", "shell-unread")
    if source.count("\n") > MAX_LINES:
        raise NotATool(f"is a shell script of over {MAX_LINES} lines: toolkiln reads none so long",
                       kind="shell-unread")  # fmt: skip
    marks = sum(source.count(mark) for mark in _MARKS)
    if marks > MAX_MARKS:
        raise NotATool(f"is a shell script too dense to read ({marks} quotes, `$`s and keywords; "
                       f"toolkiln reads up to {MAX_MARKS})", kind="shell-unread")  # fmt: skip
    text = read_shell(source)
    if "--help" in text.lines[0].raw or _speaks_help_json(text):
        raise NotATool("answers `--help` with JSON: help-json reads it", kind="plain-help")
    try:
        return [_declare(text, path)]
    except DiscoveryError as error:
        if error.path:
            raise
        raise DiscoveryError(error.reason, path=path, line=error.line) from None


def _speaks_help_json(text: ShellText) -> bool:
    return any("--help" in line.raw for line in text.lines) and any(
        _HELP_JSON.search(line.raw) for line in text.lines if '"' in line.raw
    )


def _declare(text: ShellText, path: str) -> Declaration:
    if _only_defines(text):
        raise NotATool("only defines functions and variables: a library to source, not a tool",
                       kind="shell-library")  # fmt: skip
    asks = _asks_terminal(text)
    if asks is not None:
        raise NotATool(
            f"{path}:{asks}: reads the terminal (`/dev/tty`), which a tool call cannot answer: read "
            "the value from an argument or stdin to serve it",
            kind="asks-input",
        )
    scope, calls = script_scope(text)
    loops = option_loops(text, scope)
    in_loops = {number for loop in loops for number in range(loop.start, loop.end + 1)} | calls
    positionals = read_positionals(text, scope, in_loops, path)
    header = header_comment(text)
    handed_on = _handed_on(positionals.rest, positionals.rest_line, text, path)
    if handed_on is not None:
        positionals = _as_usage_says(positionals, text, header, loops, handed_on)
    dispatch = dispatch_words(text, scope, in_loops)
    parameters = parameters_of(text, header, loops, positionals, dispatch, stdin_line(text), path)
    description = describe(header) or _usage_description(text, header, path)
    examples = header_examples(header)
    if examples:
        description += "\n\nExamples:\n" + "\n".join(f"  {line}" for line in examples)
    return Declaration(dialect="shell", description=description, parameters=parameters)


def _asks_terminal(text: ShellText) -> int | None:
    """The first line that reads the terminal (`read x </dev/tty`, `exec </dev/tty`):
    given no terminal, the script cannot be given that input at all."""
    for line in text.lines:
        at = line.code.find("/dev/tty")
        if at > 0 and line.code[:at].rstrip().endswith("<"):
            return line.number
    return None


def _only_defines(text: ShellText) -> bool:
    """Whether the script, run, would do nothing but define functions and variables."""
    for line in text.lines:
        code = line.bare.strip()
        if line.function is not None or line.heredoc or not code or code in ("{", "}"):
            continue
        if not _DEFINITION.match(code):
            return False
    return bool(text.functions)


def script_scope(text: ShellText) -> tuple[set[int], set[int]]:
    """The lines that read the script's own arguments: those outside functions, and those
    of a function the script calls with all of them (`main "$@"`); and those calls' lines."""
    called: set[str] = set()
    calls: set[int] = set()
    for line in text.lines:
        if line.function is None and "$" in line.code:
            match = _CALLS_WITH_ARGS.match(line.raw[: len(line.code)].strip())
            if match and match.group(1) in text.functions:
                called.add(match.group(1))
                calls.add(line.number)
    scope = {line.number for line in text.lines if line.function is None or line.function in called}
    return scope, calls


def _handed_on(rest: int | None, line: int, text: ShellText, path: str) -> NotATool | None:
    """`"$@"` handed to another program (`exec rsync -av "$@"`) means that program's
    interface, which toolkiln cannot read (the reason, unless the script's usage line names
    the words it takes); a loop over the words (`for f in "$@"`) is a list."""
    if rest is None:
        return None
    code = text.lines[line - 1].raw[: len(text.lines[line - 1].code)].strip()
    if code.startswith(("for ", "set --")) or "=(" in code or _ASSIGNS.match(code):
        return None
    if code.startswith(("echo", "printf")) or "$*" in code:
        return None
    return NotATool(
        f"{path}:{line}: hands its arguments on (`{code[:80]}`) to a program whose options toolkiln "
        "cannot read; serve it with the fallback (`discovery.fallback` in config/server.json), or "
        'name its parameters (`name="$1"`, a `# Usage:` line)',
        kind="shell-unread",
    )


def _as_usage_says(
    found: Positionals, text: ShellText, header: list[tuple[int, str]], loops: list[OptionLoop], why: NotATool
) -> Positionals:
    """The words a script hands on (`git log "$@"`) as its own usage line names them
    (`# Usage: git thanks <range>`): each named argument in order, optional where the line
    brackets it, a repeated one as the rest. No usage line naming them: `why`."""
    from toolkiln.conventions.shell.usage import usage_arguments, usage_line, usage_lines

    value_options = frozenset(
        option.option.rstrip("=") for loop in loops for option in loop.options if option.takes_value
    )
    usage = usage_line(usage_lines(text, header))
    arguments = usage_arguments(usage[1], value_options) if usage else []
    if not arguments or usage is None:
        raise why
    start = (found.rest or 1) - 1  # the words handed on begin after those read before them
    kept = {position: entry for position, entry in found.by_position.items() if position <= start}
    fixed = [argument for argument in arguments if not argument.variadic]
    for index, _ in enumerate(fixed[start:], start + 1):
        kept.setdefault(index, Positional(index, usage[0]))
    variadic = any(argument.variadic for argument in arguments)
    required = sum(1 for argument in fixed if not argument.optional)
    return Positionals(
        by_position=kept,
        rest=len(fixed) + 1 if variadic else None,
        rest_line=found.rest_line,
        required_count=max(found.required_count if found.counted else 0, required),
        counted=found.counted,
    )


def _usage_description(text: ShellText, header: list[tuple[int, str]], path: str) -> str:
    from toolkiln.conventions.shell.usage import usage_line, usage_lines

    usage = usage_line(usage_lines(text, header))
    if usage:
        return f"Usage: {usage[1]}"
    return f"Runs the shell script {path}."
