"""The one JSON style of toolkiln's files: sorted, indented by two spaces, unicode as it
is, newline-terminated, the very text `json.dumps(data, indent=2, sort_keys=True,
ensure_ascii=False)` gives.

The json module writes indented JSON in pure Python, one generator per level, with a
check for cycles and a conversion per key: ~120 ms of a cold discovery of 1,000 tools.
What toolkiln writes is plain data (dicts with string keys, lists, strings, numbers,
booleans, None; a model's `model_dump(mode="json")`), which the few lines here write in
~40 ms, each string escaped by the json module's own C escaper. Anything else (a key
that is not a string, a subclass, a cycle, an object json cannot write) is handed to
`json.dumps`, which writes it or says why not, as before.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring  # the C escaper, where there is one
from typing import Any

_INDENT = "  "
_CONSTANTS = {None: "null", True: "true", False: "false"}
_INFINITY = float("inf")


class _NotPlain(Exception):
    """Data the fast path leaves to `json.dumps`."""


def render_json(data: Any, *, sort_keys: bool = True) -> str:
    """`data` in toolkiln's JSON style (keys sorted unless `sort_keys` is False: files of
    other programs, an MCP client's config, keep their own order)."""
    if sort_keys:
        chunks: list[str] = []
        try:
            _write(data, chunks, "\n")
        except (_NotPlain, RecursionError, TypeError):  # json.dumps writes it, or says why not
            pass
        else:
            chunks.append("\n")
            return "".join(chunks)
    return json.dumps(data, indent=2, sort_keys=sort_keys, ensure_ascii=False) + "\n"


def _write(value: Any, chunks: list[str], newline: str) -> None:
    """`value` appended to `chunks` as json.dumps writes it at the depth `newline` is
    indented to (a newline and the indent of the line the value starts on)."""
    kind = type(value)
    if kind is str:
        chunks.append(encode_basestring(value))
    elif kind is dict:
        if not value:
            chunks.append("{}")
            return
        inner = newline + _INDENT
        separator = "{" + inner
        for key in sorted(value):  # a TypeError for keys of several types, as json.dumps gives
            if type(key) is not str:
                raise _NotPlain
            chunks.append(separator)
            chunks.append(encode_basestring(key))
            chunks.append(": ")
            _write(value[key], chunks, inner)
            separator = "," + inner
        chunks.append(newline + "}")
    elif kind is list:
        if not value:
            chunks.append("[]")
            return
        inner = newline + _INDENT
        separator = "[" + inner
        for item in value:
            chunks.append(separator)
            _write(item, chunks, inner)
            separator = "," + inner
        chunks.append(newline + "]")
    elif kind is int:
        chunks.append(int.__repr__(value))
    elif kind is bool or value is None:
        chunks.append(_CONSTANTS[value])
    elif kind is float:
        chunks.append(_float_text(value))
    else:
        raise _NotPlain


def _float_text(value: float) -> str:
    if value != value:
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return float.__repr__(value)
