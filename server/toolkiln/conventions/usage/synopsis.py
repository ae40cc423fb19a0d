"""A usage line, read with docopt's grammar (docopt.org; `conventions/usage/docopt_usage.py`):

    prog [-v] [-o FILE] <input> [<more>...]     GNU: ls [OPTION]... [FILE]...
    prog (start|stop) <name>                     BSD: cp [-R] source_file target_file
    convert.py [input pdf] [output directory]

A `<...>` or UPPER word is an argument; `[ ]` makes what it holds optional, `...` repeated,
`( | )` a choice. A line that marks its arguments so marks them all, and its bare words
are commands (docopt); a line that marks none names its arguments in prose (BSD's `file`,
`[input pdf]`), one per bracket. An option takes a value when written `--out=FILE`, alone
in brackets with it (`[-o FILE]`), or when the option section (or the script) says so.
Tolerant where docopt is strict: what it cannot read it leaves out rather than refuse, and
the caller decides whether what is left is enough.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from toolkiln.conventions.usage.model import UsageOption, UsagePositional
from toolkiln.conventions.usage.tokens import split_pattern

MAX_TOKENS = 400  # a usage line of more is not one a person wrote
MAX_DEPTH = 16
_OPTION_SHORTCUTS = frozenset({"options", "option", "opts", "flags", "flag", "switches"})
_SHORTCUTS = _OPTION_SHORTCUTS | {"args", "arguments"}
_OPTION = re.compile(r"--?[A-Za-z0-9?#][\w.-]*")
_LETTERS = re.compile(r"[A-Za-z]")


@dataclass
class Synopsis:
    positionals: list[UsagePositional] = field(default_factory=list)
    options: list[UsageOption] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    marked: bool = False


@dataclass
class Node:
    """A word, or a group: `seq`, `optional` `[ ]`, `required` `( )`, `either` `|` (its
    children the branches), `repeat` `...` (its one child repeated)."""

    kind: str
    word: str = ""
    children: list[Node] = field(default_factory=list)


def read_synopsis(source: str, known: dict[str, UsageOption]) -> Synopsis:
    """The arguments, options and commands of one usage line (its program left out);
    `known` holds the options whose value the option section (or the script) declares."""
    tokens = split_pattern(source)[:MAX_TOKENS]
    marked = _marks_arguments(tokens)
    tree = _parse_seq(tokens, 0)
    synopsis = Synopsis(marked=marked)
    _walk(tree, synopsis, known, optional=False, repeated=False)
    return synopsis


def _marks_arguments(tokens: list[str]) -> bool:
    """Whether the line writes an argument as `<x>` or `X`: not an option's value
    (argparse's `[-o OUTPUT] input` marks none), nor an option shortcut (`[OPTION]...`)."""
    values: set[str] = set()
    previous = ""
    for token in tokens:
        if _is_marked(token) and token.lower().strip("<>") not in _SHORTCUTS:
            if _is_option(previous) and "=" not in previous:
                values.add(token)
            elif token not in values:
                return True
        previous = token
    return False


# -- parsing (docopt's expr/seq/atom, without its refusals)


def _parse_seq(tokens: list[str], depth: int) -> Node:
    """seq ( '|' seq )*, as an `either` when there is a bar."""
    branches: list[Node] = []
    items: list[Node] = []
    while tokens and tokens[0] not in ("]", ")"):
        token = tokens.pop(0)
        if token == "|":
            branches.append(Node("seq", children=items))
            items = []
            continue
        if token in ("[", "("):
            inner = _parse_seq(tokens, depth + 1) if depth < MAX_DEPTH else Node("seq")
            if tokens and tokens[0] in ("]", ")"):
                tokens.pop(0)
            items.append(Node("optional" if token == "[" else "required", children=[inner]))
        elif token == "...":
            if items:
                items[-1] = Node("repeat", children=[items[-1]])
        else:
            items.append(Node("word", token))
    if branches:
        branches.append(Node("seq", children=items))
        return Node("either", children=branches)
    return Node("seq", children=items)


# -- reading the tree


def _walk(
    node: Node, out: Synopsis, known: dict[str, UsageOption], *, optional: bool, repeated: bool
) -> None:
    if node.kind == "word":
        _word(node.word, out, known, optional, repeated)
    elif node.kind == "repeat":
        _walk(node.children[0], out, known, optional=optional, repeated=True)
    elif node.kind in ("optional", "required"):
        inner = node.children[0]
        optional = optional or node.kind == "optional"
        if not _group(inner, out, known, optional, repeated):
            _walk(inner, out, known, optional=optional, repeated=repeated)
    elif node.kind == "either":
        _either(node.children, out, known, optional, repeated)
    else:
        _sequence(node.children, out, known, optional, repeated)


def _sequence(
    items: list[Node], out: Synopsis, known: dict[str, UsageOption], optional: bool, repeated: bool
) -> None:
    index = 0
    while index < len(items):
        item = items[index]
        following = items[index + 1] if index + 1 < len(items) else None
        if item.kind == "word" and _is_option(item.word) and following and following.kind == "word":
            option = known.get(item.word.split("=", 1)[0])
            value = following.word
            if option is not None and option.takes_value and "=" not in item.word and not _is_option(value):
                again = items[index + 2] if index + 2 < len(items) else None
                more = again is not None and _repeats(again, value)  # argparse's `--tags TAGS [TAGS ...]`
                _add_option(out, item.word, value, optional, repeated or more, known)
                index += 3 if more else 2
                continue
        _walk(item, out, known, optional=optional, repeated=repeated)
        index += 1


def _repeats(node: Node, value: str) -> bool:
    """`[TAGS ...]` after `--tags TAGS`: the option's value again, repeated."""
    if node.kind != "optional" or len(node.children[0].children) != 1:
        return False
    inner = node.children[0].children[0]
    return inner.kind == "repeat" and inner.children[0].kind == "word" and inner.children[0].word == value


def _group(inner: Node, out: Synopsis, known: dict[str, UsageOption], optional: bool, repeated: bool) -> bool:
    """`[-o FILE]` (an option and its value), `[input pdf]` (an argument named in prose)
    and `[width]` (a word alone in brackets: an argument, not a command): read as one;
    False for any other group."""
    if inner.kind != "seq" or not inner.children:
        return False
    alone = inner.children[0]
    if len(inner.children) == 1 and alone.kind == "repeat" and alone.children[0].kind == "word":
        word = alone.children[0].word  # `[rest...]`: a word alone, repeated
        if optional and _is_prose(word):
            out.positionals.append(UsagePositional(word, optional=True, repeated=True))
            return True
    if any(c.kind != "word" for c in inner.children):
        return False
    words = [child.word for child in inner.children]
    if len(words) == 1 and optional and _is_prose(words[0]):
        out.positionals.append(UsagePositional(words[0], optional=True, repeated=repeated))
        return True
    if len(words) == 2 and _is_option(words[0]) and not _is_option(words[1]) and "=" not in words[0]:
        _add_option(out, words[0], words[1], optional, repeated, known)
        return True
    if len(words) >= 2 and not out.marked and all(_is_prose(word) for word in words):
        out.positionals.append(UsagePositional(" ".join(words), optional=optional, repeated=repeated))
        return True
    return False


def _either(
    branches: list[Node], out: Synopsis, known: dict[str, UsageOption], optional: bool, repeated: bool
) -> None:
    """`(start|stop)`: a choice of words; `[--moored | --drifting]`: each option optional;
    anything else: each branch read as optional (one of them is given)."""
    words = [_single_word(branch) for branch in branches]
    choices = tuple(word for word in words if word and not _is_option(word) and not _is_marked(word))
    if len(choices) == len(words):
        out.positionals.append(UsagePositional("command", optional=optional, choices=choices))
        return
    for branch in branches:
        _walk(branch, out, known, optional=True, repeated=repeated)


def _single_word(node: Node) -> str | None:
    if node.kind == "word":
        return node.word
    if node.kind == "seq" and len(node.children) == 1:
        return _single_word(node.children[0])
    return None


def _word(word: str, out: Synopsis, known: dict[str, UsageOption], optional: bool, repeated: bool) -> None:
    if word in ("-", "--") or word.lower().strip("<>") in _SHORTCUTS or not _LETTERS.search(word):
        return
    if word.startswith("{") and word.endswith("}"):  # argparse's subcommands: `{add,rm}`
        choices = tuple(part for part in word[1:-1].split(",") if part)
        out.positionals.append(UsagePositional("command", optional=optional, choices=choices))
        return
    if _is_option(word):
        name, equals, value = word.partition("=")
        if equals:
            _add_option(out, name, value or "VALUE", optional, repeated, known, attached=True)
        elif name.startswith("--") or len(name) == 2:
            _add_option(out, name, None, optional, repeated, known)
        else:  # `-abc`: three flags (BSD's `[-ab]`), or the known value option among them
            for letter in name[1:]:
                _add_option(out, f"-{letter}", None, optional, repeated, known)
        return
    if _is_marked(word) or not out.marked:
        out.positionals.append(UsagePositional(word.strip("<>"), optional=optional, repeated=repeated))
    elif word not in out.commands:
        out.commands.append(word)


def _add_option(
    out: Synopsis,
    name: str,
    value: str | None,
    optional: bool,
    repeated: bool,
    known: dict[str, UsageOption],
    *,
    attached: bool = False,
) -> None:
    if not _OPTION.fullmatch(name):
        return
    described = known.get(name)
    if value is None and described is not None:
        value = described.value
    option = UsageOption(
        names=[name], value=value, attached=attached, required=not optional, repeatable=repeated
    )
    if not any(name in existing.names for existing in out.options):
        out.options.append(option)


def _is_option(word: str) -> bool:
    return word.startswith("-") and len(word) > 1 and word != "--"


def _is_marked(word: str) -> bool:
    """`<input>` or `FILE`: written as an argument."""
    if word.startswith("<") and word.endswith(">") and len(word) > 2:
        return True
    bare = word.rstrip(".")
    return bool(_LETTERS.search(bare)) and bare.isupper() and not bare.startswith("-")


def _is_prose(word: str) -> bool:
    """A word naming an argument in prose: not `[options]` (optparse's and many a script's
    stand-in for the option list), an option, a marked word or a variable."""
    return (
        bool(_LETTERS.search(word))
        and word.lower() not in _OPTION_SHORTCUTS
        and not _is_option(word)
        and not _is_marked(word)
        and "$" not in word
    )
