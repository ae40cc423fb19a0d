"""A shell script's text as lines toolkiln can read without running it: each line's code
without its comment (single-quoted text blanked, so `awk '{print $1}'` reads no `$1`),
its comment, whether it is a heredoc's body, which function it belongs to, and the loops
and `case` blocks it sits in.

One pass, character by character, so that the work grows with the file, whatever it holds
(no regular expression here runs over more than one line, and none can backtrack).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

# `<<EOF`, `<<-'EOF'`, `<< "EOF"` (not `<<<`, a here-string).
_HEREDOC = re.compile(r"(?<!<)<<(?!<)(-?)[ \t]*(['\"]?)([A-Za-z_][\w]*)")
_FUNCTION = re.compile(
    r"^(?:function[ \t]+)?([A-Za-z_][\w:.-]*)[ \t]*\([ \t]*\)|^function[ \t]+([A-Za-z_][\w:.-]*)"
)
_IN_CODE = re.compile(r"[\\'\"#]")
_IN_DOUBLE = re.compile(r"[\\\"]")
_KEYWORD = re.compile(r"(?<![\w$-])(while|until|for|select|do|done|case|esac)(?![\w-])")


@dataclass
class ShellLine:
    number: int  # 1-based
    code: str  # comment removed, single-quoted text blanked
    bare: str  # code with double-quoted text blanked too: for keywords and braces
    comment: str  # the comment's text, without its `#`
    raw: str
    heredoc: bool = False  # a heredoc's body (code is "" when the heredoc is quoted)
    function: str | None = None  # the function whose body it is in
    loop: int | None = None  # the start line of the innermost loop it is in
    case: int | None = None  # the start line of the innermost `case` block it is in


@dataclass
class ShellText:
    lines: list[ShellLine]
    # Function name -> (first line, last line), 1-based.
    functions: dict[str, tuple[int, int]]
    # Loop start line -> last line (its `done`).
    loops: dict[int, int]
    # `case` start line -> last line (its `esac`).
    cases: dict[int, int]
    # `case` start line -> the start line of the `case` it is in, if any.
    case_parents: dict[int, int | None]


def read_shell(text: str) -> ShellText:
    lines: list[ShellLine] = []
    quote = ""  # the quote open at the end of the previous line
    heredocs: deque[tuple[str, bool, bool]] = deque()  # (word, strip tabs, quoted) waiting for bodies
    for number, raw in enumerate(text.split("\n"), 1):
        if heredocs:
            word, _, quoted = heredocs[0]
            if raw.strip() == word:
                heredocs.popleft()
                lines.append(ShellLine(number, "", "", "", raw, heredoc=True))
            else:
                body = "" if quoted else raw
                lines.append(ShellLine(number, body, "", "", raw, heredoc=True))
            continue
        code, bare, comment, quote = _split_line(raw, quote)
        lines.append(ShellLine(number, code, bare, comment, raw))
        if "<<" in bare:
            heredocs += [
                (m.group(3), m.group(1) == "-", bool(m.group(2))) for m in _HEREDOC.finditer(_unquote(code))
            ]
    functions = _mark_functions(lines)
    loops, cases, case_parents = _mark_blocks(lines)
    return ShellText(lines, functions, loops, cases, case_parents)


def _unquote(code: str) -> str:
    return code.replace("\\'", "").replace('\\"', "")


def _split_line(raw: str, quote: str) -> tuple[str, str, str, str]:
    """The line's code, bare code, comment, and the quote still open at its end. Jumps
    from one quote, backslash or `#` to the next (`str.find` and one search each), so a
    long line costs what copying it does."""
    code: list[str] = []
    bare: list[str] = []
    position = 0
    length = len(raw)
    while position < length:
        if quote == "'":
            end = raw.find("'", position)
            stop = length if end < 0 else end
            blank = " " * (stop - position)
            code.append(blank)
            bare.append(blank)
            if end < 0:
                return "".join(code), "".join(bare), "", quote
            code.append("'")
            bare.append("'")
            position, quote = end + 1, ""
            continue
        pattern = _IN_DOUBLE if quote == '"' else _IN_CODE
        match = pattern.search(raw, position)
        stop = match.start() if match else length
        chunk = raw[position:stop]
        code.append(chunk)
        bare.append(" " * len(chunk) if quote else chunk)
        if match is None:
            break
        char = match.group()
        if char == "\\":
            pair = raw[stop : stop + 2]
            code.append(pair)
            bare.append(" " * len(pair) if quote else pair)
            position = stop + 2
        elif char == "#":
            if stop == 0 or raw[stop - 1] in " \t;|&(":
                return "".join(code), "".join(bare), raw[stop + 1 :].strip(), ""
            code.append(char)
            bare.append(char)
            position = stop + 1
        else:  # a quote opens or closes
            quote = "" if quote == char else char
            code.append(char)
            bare.append(char)
            position = stop + 1
    return "".join(code), "".join(bare), "", quote


def _mark_functions(lines: list[ShellLine]) -> dict[str, tuple[int, int]]:
    """Which lines are a function's body: from `name() {` to the `}` that closes it."""
    functions: dict[str, tuple[int, int]] = {}
    current: str | None = None
    start = depth = 0
    opened = False
    for line in lines:
        if line.heredoc:
            line.function = current
            continue
        bare = line.bare.strip()
        if current is None:
            match = _FUNCTION.match(bare)
            if match is None:
                continue
            current, start, depth, opened = match.group(1) or match.group(2), line.number, 0, False
        line.function = current
        opens, closes = bare.count("{"), bare.count("}")
        depth += opens - closes
        opened = opened or opens > 0
        if opened and depth <= 0:
            functions[current] = (start, line.number)
            current = None
        elif not opened and bare and not _FUNCTION.match(bare) and bare != "{":
            line.function = None  # `name()` not followed by `{`: not a function toolkiln reads
            current = None
    if current is not None:
        functions[current] = (start, lines[-1].number)
    return functions


def _mark_blocks(lines: list[ShellLine]) -> tuple[dict[int, int], dict[int, int], dict[int, int | None]]:
    """Each loop's and `case` block's lines, by the `done` and `esac` that end them."""
    loops: dict[int, int] = {}
    cases: dict[int, int] = {}
    case_parents: dict[int, int | None] = {}
    loop_stack: list[int] = []
    case_stack: list[int] = []
    for line in lines:
        line.loop = loop_stack[-1] if loop_stack else None
        line.case = case_stack[-1] if case_stack else None
        if line.heredoc:
            continue
        for match in _KEYWORD.finditer(line.bare):
            word = match.group(1)
            if word in ("while", "until", "for", "select"):
                loop_stack.append(line.number)
                line.loop = line.number
            elif word == "done" and loop_stack:
                loops[loop_stack.pop()] = line.number
            elif word == "case":
                case_parents[line.number] = case_stack[-1] if case_stack else None
                case_stack.append(line.number)
                line.case = line.number
            elif word == "esac" and case_stack:
                cases[case_stack.pop()] = line.number
    for start in loop_stack:
        loops[start] = lines[-1].number
    for start in case_stack:
        cases[start] = lines[-1].number
    return loops, cases, case_parents
