"""The description of a fallback tool: what the script's author wrote at its top, and
what `--help` printed when that text is the script's own help.

Most plain scripts in a `bin/` folder never handle `--help`: it reaches the program they
hand their arguments to (`grep`, `ls`), or is taken as an argument (a word, a port, a
file), so what it prints is often another program's help, an error, or the output of a
run: the machine's disk table, a listing of `/`, the environment. What a probe prints is
text, not truth, and a description is sent to every client; so it is kept only when it is
recognisably help (`help_refusal` says why not otherwise):

- it has the shape of help: a `usage:` line, a synopsis line that starts with the
  program's own name, or option lines (`-x, --xxx  text`);
- it is not data: most of its lines are not `NAME=value` pairs, paths, listings or rows
  of figures;
- it is not an error: a failing exit that printed `illegal option`, `unknown option`,
  `command not found`, `No such file`, a traceback;
- it can be the script's: the script handles help itself (`--help`, a `usage`, a
  `-h)` arm, `getopts`), its first line is written in the script, or the usage line
  printed names the script. A binary (no text to read) passes this last test.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolkiln.conventions.base import Candidate

HEADER_LIMIT = 2000
_HEADER_LINES = 40
# `df -h` and `ls -h` are not help handling: a bare `-h` counts only as a `case` arm.
_HANDLES_HELP = re.compile(
    r"--help\b|\busage\b|\bhelp\b|(?<![\w-])-h\s*[|)]|\bgetopts\b|\bargparse\b|\bclick\b|\btyper\b"
    r"|\bdocopt\b|\boptparse\b",
    re.IGNORECASE,
)
_USAGE_NAME = re.compile(r"\busage:?\s+(?:\$0\s+)?(\S+)", re.IGNORECASE)
_USAGE_LINE = re.compile(r"^[ \t]*usage[ \t]*:", re.IGNORECASE | re.MULTILINE)
# `-x`, `-x, --xxx`, `--xxx=VALUE`, `-x VALUE`: not `-rw-r--r--` (a listing).
_OPTION_LINE = re.compile(
    r"^[ \t]*(?:-[A-Za-z0-9?](?=[\s,=\[]|$)|--[A-Za-z][\w-]*(?=[\s,=\[]|$))", re.MULTILINE
)
_OPTIONS_HEADING = re.compile(
    r"^[ \t]*(?:options|flags|arguments|commands)[ \t]*:[ \t]*$", re.IGNORECASE | re.MULTILINE
)
# What a shell, getopt or an interpreter prints when it fails (their words, not the author's).
_ERROR = re.compile(
    r"illegal option|unknown option|invalid option|unrecognized option|unrecognised option"
    r"|option requires an argument|command not found|no such file|permission denied|not found"
    r"|Traceback \(most recent call last\)|\b\w*Error:|\berror:|cannot execute|syntax error",
    re.IGNORECASE,
)
_TRACEBACK = re.compile(r"^Traceback \(most recent call last\)|^[ \t]+at \S+ \(", re.MULTILINE)
# Lines that are data of the machine: `NAME=value` (an environment), a listing
# (`drwxr-xr-x`), a path alone or first, a row of three figures or more (`df -h`, `ps`).
_DATA_LINE = re.compile(
    r"^(?:[A-Za-z_][A-Za-z0-9_]*=|[dlcbps-][rwxsStT-]{9}[.@+]?\s|\s*/\S*(?:\s|$)"
    r"|(?:.*?(?<![\w.-])\d[\d.,:]*[%KMGTPkB]?(?![\w.-])){3})"
)
_DATA_SHARE = 0.3
_DECORATION = re.compile(r"^[\W_]*$")  # `#_____`, `#-----`, `####`, a lone `#`
_EDITOR = re.compile(r"^(?:shellcheck\s|vim?:|-\*-|ex:|kate:|@(?:license|copyright)\b)", re.IGNORECASE)


def header_comment(head: str) -> str:
    """The comment block at the top of a script (after its `#!` line): `#` or `//`
    lines, without decoration, linter and editor lines; empty when there is none."""
    lines = head.splitlines()
    index = 1 if lines and lines[0].startswith("#!") else 0
    while index < len(lines) and not lines[index].strip():
        index += 1
    kept: list[str] = []
    for line in lines[index : index + _HEADER_LINES]:
        stripped = line.strip()
        if stripped.startswith("#"):
            body = stripped[1:]
        elif stripped.startswith("//"):
            body = stripped[2:]
        else:
            break
        body = body[1:] if body.startswith(" ") else body
        if (body.strip() and _DECORATION.match(body)) or _EDITOR.match(body.strip()):
            continue
        kept.append(body.rstrip())
    text = "\n".join(kept).strip("\n")
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text[:HEADER_LIMIT].rstrip()


def help_of(candidate: Candidate, printed: str, returncode: int | None) -> tuple[str, str | None]:
    """The help in what `--help` printed (cleaned, not blank), and why none when there is
    none, in words that quote none of it (it may be data of the machine). A failing exit
    loses its error lines (`old.sh: unknown option --help`: the shell's or getopt's words)
    and keeps the usage its author wrote below them."""
    text = printed
    if returncode != 0 and _ERROR.search(printed):
        if _TRACEBACK.search(printed):
            return "", f"an error (a traceback, exit status {returncode})"
        text = "\n".join(line for line in printed.splitlines() if not _ERROR.search(line)).strip("\n")
        if not text.strip():
            return "", f"an error (exit status {returncode})"
    refusal = help_refusal(candidate, text, returncode)
    return ("", refusal) if refusal else (text, None)


def help_refusal(candidate: Candidate, help_text: str, returncode: int | None) -> str | None:
    """Why `help_text` (no error lines) is not the script's help; None when it is."""
    lines = [line for line in help_text.splitlines() if line.strip()]
    data = sum(1 for line in lines if _DATA_LINE.match(line))
    if data > _DATA_SHARE * len(lines) and data >= 2:
        return "data (a listing, a table of figures or an environment), not help"
    if not _has_help_shape(candidate, help_text):
        if returncode != 0:
            return f"text that is not help (exit status {returncode})"
        return "text that is not help (no usage line, no options, nor the program's name)"
    if not help_is_its_own(candidate, help_text):
        return "help that is not the script's own (another program's, which it hands its arguments to)"
    return None


def _has_help_shape(candidate: Candidate, help_text: str) -> bool:
    """A `usage:` line, an options heading, option lines, or a synopsis line starting
    with the program's own name."""
    if _USAGE_LINE.search(help_text) or _OPTIONS_HEADING.search(help_text) or _OPTION_LINE.search(help_text):
        return True
    names = {candidate.path.name, candidate.path.stem}
    for line in help_text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0].rsplit("/", 1)[-1] in names:
            return True
    return False


def help_is_its_own(candidate: Candidate, help_text: str) -> bool:
    """Whether what `--help` printed can be the script's own text."""
    head = candidate.head
    if not head:  # a binary: its `--help` is its own
        return True
    if _HANDLES_HELP.search(head):
        return True
    first = next((line.strip() for line in help_text.splitlines() if line.strip()), "")
    if len(first) >= 8 and first in head:  # printed by the script itself
        return True
    names = {candidate.path.name, candidate.path.stem}
    for match in _USAGE_NAME.finditer(help_text):
        word = match.group(1).strip("'\"`:,")
        if word.rsplit("/", 1)[-1] in names:
            return True
    return False


def describe(candidate: Candidate, own: str) -> str:
    """The header comment, then `own` (the `--help` text `help_refusal` let through);
    either alone; empty when there is neither."""
    header = header_comment(candidate.head)
    if header and own and own.strip() not in header:
        return f"{header}\n\n{own}"
    return header or own
