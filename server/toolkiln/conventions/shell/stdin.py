"""Whether a shell script reads its standard input: `cat` with no file (or `cat -`,
`$(cat)`), `read` and `while read` not fed by a pipe or a redirection, `/dev/stdin`.
Read a line at a time; each word looked at is followed for a bounded stretch only."""

from __future__ import annotations

import re

from toolkiln.conventions.shell.lines import ShellText

_CAT = re.compile(r"(?<![\w./-])cat(?![\w.-])")
_READ = re.compile(r"(?<![\w./-])read(?![\w.-])")
_COMMAND_START = ("", "while", "until", "if", "then", "do", "else", "!", "IFS=", "&&", "||", ";", "(", "$(")
_WINDOW = 256


def stdin_line(text: ShellText) -> int | None:
    """The first line that reads the script's standard input, or None."""
    for line in text.lines:
        code = line.code
        if not code or line.heredoc:
            continue
        if "/dev/stdin" in code:
            return line.number
        if "cat" in line.bare and any(_cat_reads_stdin(line.bare, m.end()) for m in _CAT.finditer(line.bare)):
            return line.number
        if "read" in line.bare and any(
            _read_reads_stdin(text, line.number, line.bare, m) for m in _READ.finditer(line.bare)
        ):
            return line.number
    return None


def _fed(before: str) -> bool:
    """Whether a command after `before` gets its input from a pipe."""
    stripped = before.rstrip()
    return stripped.endswith("|") and not stripped.endswith("||")


def _cat_reads_stdin(bare: str, end: int) -> bool:
    if _fed(bare[max(0, end - 3 - _WINDOW) : end - 3]):
        return False
    words = bare[end : end + _WINDOW].split()
    while words and words[0].startswith("-") and words[0] != "-":
        words = words[1:]  # `cat -n`
    if words and words[0] == "-":
        return True
    skip = False
    for word in words:  # redirections of its output (`cat >&2`, `cat > out`) before its input's
        if skip:
            skip = False
        elif word.startswith("<") or word[:2] in ("0<", "<<"):
            return False  # `cat <<EOF`, `cat < file`: fed, not the script's stdin
        elif word[0] in "|;)&":
            return True
        elif word.lstrip("12&").startswith(">"):
            skip = word.lstrip("12&") in (">", ">>")  # `> out`: the file is the next word
        else:
            return False  # `cat file`
    return True


def _read_reads_stdin(text: ShellText, number: int, bare: str, match: re.Match[str]) -> bool:
    before = bare[max(0, match.start() - _WINDOW) : match.start()].rstrip()
    last = before.split()[-1] if before.split() else ""
    if not (last in _COMMAND_START or last.startswith("IFS=") or last.endswith((";", "(", "&&", "||"))):
        return False  # `read` as a word, not a command
    head = before[: -len(last)] if last in ("while", "until", "!") else before
    if _fed(head) or "<" in bare[match.end() : match.end() + _WINDOW]:
        return False  # `... | while read`, `read x < file`, `read x <<< "$y"`
    line = text.lines[number - 1]
    if line.loop == number:  # `while read ...; do ... done < file`
        end = text.loops.get(number, number)
        done = text.lines[end - 1].bare
        if "<" in done[done.find("done") :]:
            return False
    return not _previous_ends_with_pipe(text, number)


def _previous_ends_with_pipe(text: ShellText, number: int) -> bool:
    for line in reversed(text.lines[max(0, number - 2) : number - 1]):
        stripped = line.bare.rstrip().rstrip("\\").rstrip()
        return stripped.endswith("|") and not stripped.endswith("||")
    return False
