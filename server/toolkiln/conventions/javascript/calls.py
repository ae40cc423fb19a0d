"""The calls a JavaScript file makes, with their literal arguments, read as text.

    program
      .option('-p, --port <number>', 'port to listen on', 8080)   // a comment
      .addOption(new Option('--size <s>').choices(['small', 'large']))
      .parse()

reads as calls `option('-p, --port <number>', 'port to listen on', 8080)` and
`addOption(Construct('Option', ['--size <s>'], [choices(['small', 'large'])]))` and
`parse()`, each with its line and the name its chain starts from (`program`).

Each argument is read as a Python value by `js_values` (a literal, a `Name`, a
`Construct`, or `OPAQUE`). Nothing is evaluated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolkiln.conventions.javascript.tokens import Token, tokenize
from toolkiln.conventions.javascript.values import Call, ValueReader


@dataclass
class Source:
    """A file's calls (method calls and plain calls such as `parseArgs(...)`) in order."""

    calls: list[Call]
    bindings: dict[str, Any]
    # The chains assigned to a name (`const add = program.command('add')`): chain -> name.
    assigned: dict[int, str] = field(default_factory=dict)
    # The chains that start with `new X(...)`: chain -> (X, its arguments).
    constructed: dict[int, tuple[str, list[Any]]] = field(default_factory=dict)


def read_calls(text: str, methods: frozenset[str]) -> Source:
    """The calls of `text` named in `methods` (the arguments of no other call are read)."""
    tokens = tokenize(text)
    reader = ValueReader(tokens)
    reader.bind_constants()
    closing = _matching_parens(tokens)
    calls: list[Call] = []
    chain_of: dict[int, str] = {}  # index of a `)` -> the receiver of the chain it ends
    start_of: dict[int, int] = {}  # index of a `)` -> where the chain it ends starts
    assigned: dict[int, str] = {}
    constructed: dict[int, tuple[str, list[Any]]] = {}
    for index, token in enumerate(tokens):
        if token.kind != "(" or index == 0 or tokens[index - 1].kind != "name" or index not in closing:
            continue
        name = tokens[index - 1].value
        before = tokens[index - 2] if index >= 2 else None
        if before is not None and before.kind in (".", "?."):
            receiver = _receiver(tokens, index - 3, chain_of)
            start = _start(tokens, index - 3, start_of)
        elif before is not None and before.kind == "name" and before.value in ("function", "new"):
            if before.value == "new":
                start_of[closing[index]] = index - 2
                constructed[index - 2] = (str(name), reader.arguments(index)[0])
                if index >= 4 and tokens[index - 3].kind == "=" and tokens[index - 4].kind == "name":
                    assigned[index - 2] = str(tokens[index - 4].value)
            continue
        else:
            receiver, start = name, index - 1
        chain_of[closing[index]] = receiver
        start_of[closing[index]] = start
        if start >= 2 and tokens[start - 1].kind == "=" and tokens[start - 2].kind == "name":
            assigned[start] = str(tokens[start - 2].value)
        if name in methods:
            args, _ = reader.arguments(index)
            on_object = receiver != name or (before is not None and before.kind in (".", "?."))
            calls.append(
                Call(name, args, tokens[index - 1].line, receiver, on_object, start, (index, closing[index]))
            )
    return Source(calls, reader.bindings, assigned, constructed)


def _start(tokens: list[Token], index: int, start_of: dict[int, int]) -> int:
    """Where a chain of calls starts, given the token before its `.`."""
    if index < 0:
        return -1
    token = tokens[index]
    if token.kind == "name":
        while index >= 2 and tokens[index - 1].kind == "." and tokens[index - 2].kind == "name":
            index -= 2
        return index
    if token.kind == ")":
        return start_of.get(index, index)
    return index


def _matching_parens(tokens: list[Token]) -> dict[int, int]:
    """Each `(` with the index of the `)` that closes it."""
    closing: dict[int, int] = {}
    stack: list[int] = []
    for index, token in enumerate(tokens):
        if token.kind == "(":
            stack.append(index)
        elif token.kind == ")" and stack:
            closing[stack.pop()] = index
    return closing


def _receiver(tokens: list[Token], index: int, chain_of: dict[int, str]) -> str:
    """The name a chain of calls starts from, given the token before its `.`."""
    if index < 0:
        return ""
    token = tokens[index]
    if token.kind == "name":
        while index >= 2 and tokens[index - 1].kind == "." and tokens[index - 2].kind == "name":
            index -= 2
        return str(tokens[index].value)
    if token.kind == ")":
        return chain_of.get(index, "")
    return ""
