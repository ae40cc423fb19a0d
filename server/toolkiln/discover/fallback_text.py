"""The description of a fallback tool: what the script's author wrote at its top, and
what `--help` printed when that text is the script's own.

Most plain scripts in a `bin/` folder never handle `--help`: it reaches the program they
hand their arguments to (`grep`, `ls`), or is taken as an argument (a word, a port, a
file), so what it prints is often another program's help, an error, or the output of a
run. That text is kept only when it can be the script's: the script mentions `--help`,
`-h` or help at all, its first line is written in the script, or the usage line printed
names the script. A binary (no text to
read) keeps its `--help` text as it is.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolkiln.discover.base import Candidate

HEADER_LIMIT = 2000
_HEADER_LINES = 40
_HANDLES_HELP = re.compile(r"--help|(?<![\w-])-h\b|\bhelp\b", re.IGNORECASE)
_USAGE_NAME = re.compile(r"\busage:?\s+(?:\$0\s+)?(\S+)", re.IGNORECASE)
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


def describe(candidate: Candidate, help_text: str) -> str:
    """The header comment, then the `--help` text when it is the script's; either alone;
    empty when there is neither."""
    header = header_comment(candidate.head)
    own = help_text if help_text and help_is_its_own(candidate, help_text) else ""
    if header and own and own.strip() not in header:
        return f"{header}\n\n{own}"
    return header or own
