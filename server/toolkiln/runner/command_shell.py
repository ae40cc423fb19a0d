"""`shell: true`: a command line read with a real shell grammar, then rewritten.

The line is parsed with bashlex (a port of bash's own parser). Only what it fully
understands and what means one thing is admitted: simple commands of plain words,
joined by `|`, `&&`, `||` and `;`, with redirections of stdin, stdout and stderr to a
plain file name or to another of those three. Everything else is refused: comments,
newlines and other control characters, `&`, substitutions, parameters, arithmetic,
globs, braces, `~`, assignments, here-documents, functions, subshells, reserved words.

A word is plain when its text, as written, is only unquoted safe characters, single
quotes, or double quotes without `$`, `` ` ``, `\\` or `!`; its value must be what the
parser made of it. Then the line that runs is not the client's: it is rebuilt from the
checked words, each in single quotes, each program as the path that was checked. So
what /bin/sh (dash) runs is exactly what was checked, and means the same in bash.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from toolkiln.runner.command_fence import CommandRefused

# Unquoted, single-quoted, or double-quoted without anything a shell expands inside.
_WORD_PART = re.compile(r"[A-Za-z0-9_@%+=:,./-]+|'[^']*'|\"[^\"$`\\!]*\"")
_OPERATORS = frozenset({"|", "&&", "||", ";"})
_REDIRECTIONS = frozenset({"<", ">", ">>"})
_STANDARD_FDS = frozenset({0, 1, 2})


@dataclass(frozen=True)
class Redirection:
    """`fd` `kind` (`<`, `>`, `>>`) a file, or `fd>&target_fd`."""

    fd: int
    kind: str
    file: str | None = None
    target_fd: int | None = None


@dataclass(frozen=True)
class ShellCommand:
    """One simple command: its words, and its redirections."""

    words: list[str]
    redirections: list[Redirection] = field(default_factory=list)


@dataclass(frozen=True)
class ShellLine:
    """Simple commands and the operators between them (`operators[i]` follows `commands[i]`)."""

    commands: list[ShellCommand]
    operators: list[str]


def parse_shell_line(command: str) -> ShellLine:
    """The commands of `command`, or `CommandRefused` naming what is not admitted."""
    bad = next((char for char in command if ord(char) < 32 or ord(char) == 127), None)
    if bad is not None:
        raise CommandRefused(
            f"the command contains the control character {bad!r} (newline, carriage return, tab...): "
            "a shell would take it for a line break or a separator; give one line"
        )
    import bashlex  # type: ignore[import-untyped]  # only shell mode needs the grammar

    try:
        parts = bashlex.parse(command)
    except Exception as error:  # bashlex raises ParsingError, NotImplementedError and others
        raise CommandRefused(f"the shell grammar does not admit this command: {error}") from None
    if len(parts) != 1:
        raise CommandRefused("the command must be one line of simple commands")
    line = ShellLine([], [])
    covered: list[tuple[int, int]] = []
    _walk(parts[0], command, line, covered)
    _check_covered(command, covered)
    if not line.commands:
        raise CommandRefused("the command is empty")
    return line


def render_shell_line(line: ShellLine, argvs: list[list[str]]) -> str:
    """The line to run: `argvs[i]` (the checked argv of command i) with its redirections, in
    single quotes, joined by the operators."""
    rendered = []
    for index, (command, argv) in enumerate(zip(line.commands, argvs, strict=True)):
        words = [quote(word) for word in argv]
        words += [_render_redirection(redirection) for redirection in command.redirections]
        rendered.append(" ".join(words))
        if index < len(line.operators):
            rendered.append(line.operators[index])
    return " ".join(rendered)


def quote(word: str) -> str:
    """`word` in single quotes, whatever it holds: no reserved word, no expansion."""
    return "'" + word.replace("'", "'\"'\"'") + "'"


def _render_redirection(redirection: Redirection) -> str:
    if redirection.target_fd is not None:
        return f"{redirection.fd}>&{redirection.target_fd}"
    assert redirection.file is not None
    return f"{redirection.fd}{redirection.kind} {quote(redirection.file)}"


def _walk(node: Any, source: str, line: ShellLine, covered: list[tuple[int, int]]) -> None:
    kind = node.kind
    if kind in ("list", "pipeline"):
        for part in node.parts:
            _walk(part, source, line, covered)
    elif kind in ("operator", "pipe"):
        operator = node.op if kind == "operator" else node.pipe
        if operator not in _OPERATORS:
            raise CommandRefused(f"{operator!r} is not admitted; only | && || ; join commands")
        if len(line.operators) != len(line.commands) - 1 or not line.commands:
            raise CommandRefused(f"{operator!r} must stand between two commands")
        line.operators.append(operator)
        covered.append(node.pos)
    elif kind == "command":
        if len(line.operators) != len(line.commands):
            raise CommandRefused("two commands must be joined by | && || or ;")
        line.commands.append(_command(node, source, covered))
    else:
        raise CommandRefused(f"{_describe(kind)} is not admitted; only simple commands of plain words")
    if line.operators and line.operators[-1] != ";" and len(line.operators) > len(line.commands):
        raise CommandRefused(f"{line.operators[-1]!r} must be followed by a command")


def _command(node: Any, source: str, covered: list[tuple[int, int]]) -> ShellCommand:
    command = ShellCommand([])
    for part in node.parts:
        if part.kind == "word":
            command.words.append(_plain_word(part, source))
            covered.append(part.pos)
        elif part.kind == "redirect":
            command.redirections.append(_redirection(part, source))
            covered.append(part.pos)
        else:
            raise CommandRefused(f"{_describe(part.kind)} is not admitted; only plain words")
    if not command.words:
        raise CommandRefused("a command without a program (only redirections) is not admitted")
    return command


def _plain_word(node: Any, source: str) -> str:
    text = source[node.pos[0] : node.pos[1]]
    if getattr(node, "parts", None):
        raise CommandRefused(
            f"{text!r}: {_describe(node.parts[0].kind)} is not admitted; run_command takes plain words"
        )
    value = _plain_value(text)
    if value is None or value != node.word:
        raise CommandRefused(
            f"{text!r} is not a plain word: give letters, digits and _@%+=:,./- or text in "
            "single quotes; globs, braces, ~, $, backslashes and backticks are not admitted"
        )
    return value


def _plain_value(text: str) -> str | None:
    """What a plain word means, or None when it is not one."""
    value, position = [], 0
    while position < len(text):
        match = _WORD_PART.match(text, position)
        if match is None:
            return None
        part = match.group()
        value.append(part[1:-1] if part[0] in "'\"" else part)
        position = match.end()
    return "".join(value) if text else None


def _redirection(node: Any, source: str) -> Redirection:
    kind, fd, target = node.type, node.input, node.output
    text = source[node.pos[0] : node.pos[1]]
    if getattr(node, "heredoc", None) is not None or kind not in (*_REDIRECTIONS, ">&"):
        raise CommandRefused(f"{text!r}: only <, >, >> to a file and N>&M are admitted")
    if fd is None:
        fd = 0 if kind == "<" else 1
    if fd not in _STANDARD_FDS:
        raise CommandRefused(f"{text!r}: only stdin, stdout and stderr (0, 1, 2) may be redirected")
    if kind == ">&":
        if not isinstance(target, int) or target not in _STANDARD_FDS:
            raise CommandRefused(f"{text!r}: >& may only point at 0, 1 or 2")
        return Redirection(fd, kind, target_fd=target)
    if isinstance(target, int) or target is None or target.kind != "word":
        raise CommandRefused(f"{text!r}: a redirection needs a file name")
    return Redirection(fd, kind, file=_plain_word(target, source))


def _check_covered(source: str, covered: list[tuple[int, int]]) -> None:
    """Every character the parser did not account for must be a space: no comment, nothing dropped."""
    seen = [False] * len(source)
    for start, end in covered:
        seen[start:end] = [True] * (end - start)
    stray = "".join(char for char, used in zip(source, seen, strict=True) if not used).replace(" ", "")
    if stray:
        raise CommandRefused(f"{stray[:40]!r} is not part of any command the grammar admits (a comment?)")


def _describe(kind: str) -> str:
    return {
        "commandsubstitution": "command substitution ($(...) or backticks)",
        "processsubstitution": "process substitution (<(...))",
        "parameter": "a parameter ($NAME)",
        "tilde": "~ (the home folder)",
        "assignment": "an assignment (NAME=value)",
        "function": "a function",
        "compound": "a group or subshell",
        "reservedword": "a reserved word",
        "if": "if",
        "for": "for",
        "while": "while",
        "until": "until",
        "case": "case",
    }.get(kind, repr(kind))
