"""JavaScript expressions read as Python values, from tokens (nothing is evaluated): a
literal (strings, numbers, true, false, null, arrays, objects), a `Name` (`parseInt`,
`process.env.PORT`), a `Construct` (`new X(...)` and the calls chained on it), and
`OPAQUE` for anything else (a function, an expression). A name bound once by
`const NAME = <literal>` stands for its literal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolkiln.conventions.javascript.tokens import Token

_CLOSERS = {"(": ")", "[": "]", "{": "}"}
_ENDS = {",", ")", "]", "}", ";"}
_WORDS = {"true": True, "false": False, "null": None, "undefined": None}


class _Opaque:
    def __repr__(self) -> str:
        return "OPAQUE"


OPAQUE: Any = _Opaque()  # an argument that is not a literal


@dataclass(frozen=True)
class Name:
    """A name or a dotted name used as a value: `parseInt`, `process.env.PORT`."""

    dotted: str


@dataclass(frozen=True)
class Call:
    method: str
    args: list[Any]
    line: int
    receiver: str = ""  # the name the chain of calls starts from
    on_object: bool = True  # `x.method(...)`, not a plain `method(...)`
    # Where the chain of calls starts (a token index: one per `a.b().c()` expression), and
    # the token indexes of this call's `(` and `)` (what lies between is its arguments).
    chain: int = -1
    span: tuple[int, int] = (-1, -1)


@dataclass(frozen=True)
class Construct:
    """`new Option('--x <v>', 'desc').choices([...])`: the class, its arguments, the calls on it."""

    callee: str
    args: list[Any]
    calls: list[Call] = field(default_factory=list)


class ValueReader:
    """Reads the expressions of one file's tokens as Python values."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.bindings: dict[str, Any] = {}
        self._counts: dict[str, int] = {}

    def bind_constants(self) -> None:
        """`const NAME = {...}` (or `[...]`, a string, a number) anywhere: bound once, known."""
        tokens = self.tokens
        for index, token in enumerate(tokens[:-3]):
            if (
                token.kind == "name"
                and token.value in ("const", "let", "var")
                and tokens[index + 1].kind == "name"
            ):
                name = tokens[index + 1].value
                self._counts[name] = self._counts.get(name, 0) + 1
                equals = index + 2
                if tokens[equals].kind == ":":  # a TypeScript annotation: `const x: T = ...`
                    equals = self._skip(equals + 1, stop={"="})
                starts = tokens[equals + 1].kind if equals + 1 < len(tokens) else ""
                literal = starts in ("{", "[", "string", "number")
                if literal and tokens[equals].kind == "=":
                    value, _ = self.value(equals + 1)
                    self.bindings[name] = value
        for name, count in self._counts.items():
            if count > 1:
                self.bindings.pop(name, None)

    def arguments(self, open_index: int) -> tuple[list[Any], int]:
        """The arguments of the call whose `(` is at `open_index`, and the index after its `)`."""
        return self._items(open_index, ")")

    def value(self, index: int) -> tuple[Any, int]:
        """The expression at `index` and the index of what ends it (`,` or a closer)."""
        tokens = self.tokens
        if index >= len(tokens):
            return OPAQUE, index
        token = tokens[index]
        value: Any = OPAQUE
        after = index + 1
        if token.kind == "(":  # `(x) => ...`, `(a || b)`: skipped whole, from its `(`
            return OPAQUE, self._skip(index)
        if token.kind in ("string", "number"):
            value = token.value if token.value is not None else OPAQUE
        elif token.kind == "-" and index + 1 < len(tokens) and tokens[index + 1].kind == "number":
            value, after = -tokens[index + 1].value, index + 2
        elif token.kind == "[":
            value, after = self._items(index, "]")
        elif token.kind == "{":
            value, after = self._object(index)
        elif token.kind == "name" and token.value == "new":
            value, after = self._construct(index + 1)
        elif token.kind == "name" and token.value in _WORDS:
            value = _WORDS[token.value]
        elif token.kind == "name":
            dotted, after = self._dotted(index)
            value = self.bindings.get(dotted, Name(dotted))
        if (
            after < len(tokens)
            and tokens[after].kind == "name"
            and tokens[after].value in ("as", "satisfies")
        ):
            after = self._skip(after + 1)  # TypeScript: `[...] as const`
        if after < len(tokens) and tokens[after].kind not in _ENDS:
            return OPAQUE, self._skip(after)
        return value, after

    def _dotted(self, index: int) -> tuple[str, int]:
        tokens = self.tokens
        parts = [tokens[index].value]
        index += 1
        while (
            index + 1 < len(tokens) and tokens[index].kind in (".", "?.") and tokens[index + 1].kind == "name"
        ):
            parts.append(tokens[index + 1].value)
            index += 2
        return ".".join(parts), index

    def _construct(self, index: int) -> tuple[Any, int]:
        tokens = self.tokens
        if index >= len(tokens) or tokens[index].kind != "name":
            return OPAQUE, index
        callee, index = self._dotted(index)
        if index >= len(tokens) or tokens[index].kind != "(":
            return OPAQUE, index
        args, index = self._items(index, ")")
        calls: list[Call] = []
        while index + 2 < len(tokens) and tokens[index].kind == "." and tokens[index + 2].kind == "(":
            method, line = tokens[index + 1].value, tokens[index + 1].line
            call_args, index = self._items(index + 2, ")")
            calls.append(Call(str(method), call_args, line, callee))
        return Construct(callee.rpartition(".")[2], args, calls), index

    def _items(self, open_index: int, closer: str) -> tuple[list[Any], int]:
        """The items between the bracket at `open_index` and its closer; index after it."""
        tokens = self.tokens
        items: list[Any] = []
        index = open_index + 1
        while index < len(tokens) and tokens[index].kind != closer:
            if tokens[index].kind == "...":
                items.append(OPAQUE)
                index = self._skip(index + 1)
            else:
                item, index = self.value(index)
                items.append(item)
            if index < len(tokens) and tokens[index].kind == ",":
                index += 1
            elif index < len(tokens) and tokens[index].kind != closer:
                index = self._skip(index + 1)
        return items, index + 1

    def _object(self, open_index: int) -> tuple[Any, int]:
        tokens = self.tokens
        members: dict[str, Any] = {}
        index = open_index + 1
        readable = True
        while index < len(tokens) and tokens[index].kind != "}":
            token = tokens[index]
            following = tokens[index + 1].kind if index + 1 < len(tokens) else ""
            if token.kind in ("name", "string", "number") and token.value is not None and following == ":":
                members[str(token.value)], index = self.value(index + 2)
            elif token.kind == "name" and following in (",", "}"):  # shorthand `{ options }`
                members[token.value] = self.bindings.get(token.value, Name(token.value))
                index += 1
            else:  # a spread, a method, a computed key: the object is not all there
                readable = False
                index = self._skip(index)
            if index < len(tokens) and tokens[index].kind == ",":
                index += 1
            elif index < len(tokens) and tokens[index].kind != "}":
                index = self._skip(index + 1)
        return (members if readable else OPAQUE), index + 1

    def _skip(self, index: int, stop: set[str] | None = None) -> int:
        """The index of the next `,` or closer at this depth (or of a `stop` token)."""
        tokens = self.tokens
        depth = 0
        while index < len(tokens):
            kind = tokens[index].kind
            if depth == 0 and (kind in _ENDS or (stop and kind in stop)):
                return index
            if kind in _CLOSERS:
                depth += 1
            elif kind in (")", "]", "}"):
                depth -= 1
            index += 1
        return index
