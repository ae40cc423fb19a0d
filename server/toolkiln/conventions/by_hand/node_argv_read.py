"""What a Node script that reads `process.argv` by hand takes, read from its text:

    const input = process.argv[2];                     // word 1, named input
    const out = process.argv[3] || "out.txt";          // word 2, optional, default out.txt
    const [, , src, dst] = process.argv;               // words 1 and 2, named
    const [name, ...files] = process.argv.slice(2);    // word 1, then the rest (an array)
    const args = process.argv.slice(2); const x = args[0];
    if (process.argv.length < 4) { ... }               // two words required
    process.stdin, fs.readFileSync(0), "/dev/stdin"    // reads its standard input

Every other use (`process.argv.includes("-v")`, `process.argv.indexOf(...)`) is a
`problem`: the script reads something toolkiln cannot name. Each `process.argv` is read
in a window of `_WINDOW` characters around it, and at most `MAX_READS` of them: linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

MAX_READS = 100
MAX_FINDS = 5000  # places a name is looked at, words of its own or not
_WINDOW = 160
# `const name = ` and, in TypeScript, `const name: string = ` (the type read over a bounded span).
_BOUND_BEFORE = re.compile(
    r"(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)(?:[ \t]*:[ \t]*[\w$.<>\[\]| \t]{1,60})?"
    r"[ \t]*=[ \t]*\(?[ \t]*\Z"
)
_DESTRUCTURED = re.compile(r"(?:const|let|var)[ \t]*\[([^\[\]=;]{0,120})\][ \t]*=[ \t]*\Z")
_INDEX = re.compile(r"\[[ \t]*(\d{1,3})[ \t]*\]")
_SLICE = re.compile(r"\.slice\([ \t]*(\d)[ \t]*\)")
_LENGTH = re.compile(r"\.length[ \t]*(<=|<|!==|!=|===|==|>=|>)[ \t]*(\d{1,3})")
_DEFAULT = re.compile(r"[ \t]*(?:\|\||\?\?)[ \t]*(?:(['\"`])([^'\"`\n]{0,100})\1|(\d{1,12}(?:\.\d+)?)|(\S))")
_STDIN_MARKS = ("process.stdin", "readFileSync(0", "readFileSync('/dev/stdin'", 'readFileSync("/dev/stdin"')
_ASK_MARKS = ("question", "prompt", "promptSync", "inquirer")
_IMPORTS_HEAD = 64 * 1024  # a library is required or imported near the top
_LIBRARIES = re.compile(
    r"""(?:require\(|\bfrom\b)[ \t]*['"](minimist|meow|arg|mri|cac|sade|oclif|clipanion)['"]"""
)
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_STRING = re.compile(r"""(['"`])((?:(?!\1)[^\\\n]|\\.){1,300})\1""")


@dataclass
class NodeSlot:
    index: int  # 1 for `process.argv[2]`
    line: int
    name: str | None = None
    default: str | float | None = None
    optional: bool = False


@dataclass
class NodeReading:
    slots: dict[int, NodeSlot] = field(default_factory=dict)
    rest: NodeSlot | None = None  # the words from `rest.index` on
    required_words: int = 0
    reads_argv: bool = False
    reads_stdin: bool = False
    asks: str | None = None
    library: str | None = None
    problems: list[tuple[int, str]] = field(default_factory=list)
    strings: list[str] = field(default_factory=list)


def read_node_argv(text: str) -> NodeReading:
    reading = NodeReading(reads_stdin=any(mark in text for mark in _STDIN_MARKS))
    library = _LIBRARIES.search(text[:_IMPORTS_HEAD])
    reading.library = library.group(1) if library else None
    reading.asks = _asks(text)
    usage_lines = [line[:1000] for line in text.splitlines() if "sage" in line][:50]
    reading.strings = [
        m.group(2) for line in usage_lines for m in _STRING.finditer(line) if "sage" in m.group(2)
    ]
    aliases: set[str] = set()
    for count, start in enumerate(_words(text, "process.argv")):
        if count >= MAX_READS or start < 0:
            reading.problems.append(
                (_line(text, max(start, 0)), f"reads process.argv over {MAX_READS} times")
            )
            break
        reading.reads_argv = True
        _read_one(text, start, start + len("process.argv"), reading, aliases)
    return reading


def _words(text: str, word: str) -> Iterator[int]:
    """Where `word` stands as a word of its own (not `xprocess.argv`, nor `.argvs`):
    found by `str.find`, which a regular expression starting at a word boundary is not."""
    at = text.find(word)
    tried = 0
    while at >= 0:
        tried += 1
        if tried > MAX_FINDS:  # `a` inside every other word: too many to look at
            yield -1
            return
        before = text[at - 1 : at] if at else ""
        after = text[at + len(word) : at + len(word) + 1]
        if not (before.isalnum() or before in ("_", "$", ".")) and not (
            after.isalnum() or after in ("_", "$")
        ):
            yield at
        at = text.find(word, at + len(word))


def _asks(text: str) -> str | None:
    """`rl.question(`, `prompt(`, inquirer: the script asks while it runs."""
    for mark in _ASK_MARKS:
        for at in _words(text, mark):
            if at < 0:
                return mark  # said thousands of times: not a script toolkiln can serve
            following = text[at + len(mark) : at + len(mark) + 20].lstrip(" \t")
            if mark == "inquirer" or following.startswith("("):
                return mark
            break
    return None


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def _read_one(text: str, start: int, end: int, reading: NodeReading, aliases: set[str]) -> None:
    before = text[max(0, start - _WINDOW) : start]
    after = text[end : end + _WINDOW]
    line = _line(text, start)
    index = _INDEX.match(after)
    if index:
        position = int(index.group(1)) - 1
        if position < 1:
            return  # argv[0], argv[1]: node and the script
        _read_word(reading, position, line, before, after[index.end() :])
        return
    length = _LENGTH.match(after)
    if length:
        reading.required_words = max(reading.required_words, _needed(length) - 2)
        return
    if after.startswith(".length"):
        return  # its length printed or compared to a variable: no word read
    destructured = _DESTRUCTURED.search(before)
    sliced = _SLICE.match(after)
    offset = int(sliced.group(1)) - 1 if sliced else 0
    if destructured:
        _read_pattern(destructured.group(1), offset if sliced else -1, line, reading)
        return
    if sliced and offset >= 1:
        bound = _BOUND_BEFORE.search(before)
        if bound:
            if bound.group(1) not in aliases:  # each name's uses are read once
                aliases.add(bound.group(1))
                _read_alias(text, bound.group(1), offset, line, reading)
        elif reading.rest is None:
            reading.rest = NodeSlot(offset, line)
        return
    reading.problems.append((line, "reads process.argv in a way toolkiln cannot name"))


def _read_pattern(pattern: str, offset: int, line: int, reading: NodeReading) -> None:
    """`[, , a, b, ...rest]` (offset -1: the words of process.argv itself) or
    `[a, ...rest]` of `process.argv.slice(2)` (offset 1)."""
    for place, part in enumerate(pattern.split(",")):
        position = place + (offset if offset >= 1 else -1)
        word = part.strip()
        if not word or position < 1:
            continue
        name_part, equals, default = word.partition("=")
        if name_part.startswith("..."):
            name = _NAME.match(name_part[3:].strip())
            reading.rest = NodeSlot(position, line, name.group(0) if name else None)
            return
        name = _NAME.match(name_part.strip())
        slot = reading.slots.setdefault(position, NodeSlot(position, line))
        slot.name = slot.name or (name.group(0) if name else None)
        if equals:
            _read_default("||" + default, slot)


def _read_alias(text: str, alias: str, offset: int, line: int, reading: NodeReading) -> None:
    """`const args = process.argv.slice(2)`: `args[0]`, `args.length`, or the whole list."""
    indexed = False
    for count, start in enumerate(_words(text, alias)):
        if count > 4 * MAX_READS or start < 0:
            reading.problems.append((line, f"uses {alias} too many times for toolkiln to follow"))
            return
        end = start + len(alias)
        after = text[end : end + _WINDOW]
        index = _INDEX.match(after)
        if index:
            indexed = True
            before = text[max(0, start - _WINDOW) : start]
            _read_word(
                reading, offset + int(index.group(1)), _line(text, start), before, after[index.end() :]
            )
            continue
        length = _LENGTH.match(after)
        if length:
            reading.required_words = max(reading.required_words, _needed(length) + offset - 1)
    if not indexed and reading.rest is None:
        reading.rest = NodeSlot(offset, line, alias)


def _read_word(reading: NodeReading, position: int, line: int, before: str, after: str) -> None:
    """Word `position` read at `line`: named by what it is bound to (`const name =` in
    `before`), its default from what follows the read (`after`: `|| "x"`)."""
    slot = reading.slots.setdefault(position, NodeSlot(position, line))
    bound = _BOUND_BEFORE.search(before)
    slot.name = slot.name or (bound.group(1) if bound else None)
    _read_default(after, slot)


def _needed(length: re.Match[str]) -> int:
    """How many words a test on the list's length (`args.length < 2`) asks for."""
    operator, number = length.group(1), int(length.group(2))
    needed = {"<": number, "!==": number, "!=": number, "===": number, "==": number, "<=": number + 1}
    return needed.get(operator, 0)


def _read_default(after: str, slot: NodeSlot) -> None:
    found = _DEFAULT.match(after)
    if not found:
        return
    slot.optional = True
    if found.group(2) is not None:
        slot.default = found.group(2)
    elif found.group(3) is not None:
        number = float(found.group(3))
        slot.default = int(number) if number.is_integer() else number
