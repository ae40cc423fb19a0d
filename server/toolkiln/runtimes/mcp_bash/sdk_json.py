"""The JSON work of toolkiln's mcp-bash runtime (tool-sdk.sh), for when it needs more
than bash: building results, and reading arguments with a jq filter when jq is not
installed (a subset of jq: paths, `//`, literals, `$name`, and a few builtins).

    python3 sdk_json.py get FILTER < args.json        print what the filter gives, as `jq -r`
    python3 sdk_json.py escape VALUE                   VALUE as a JSON string
    python3 sdk_json.py compact < value.json           one JSON value, compact; exit 1 if not JSON
    python3 sdk_json.py success MAX_BYTES < data.json  mcp_result_success's CallToolResult
    python3 sdk_json.py error < error.json             mcp_result_error's CallToolResult
    python3 sdk_json.py error-object TYPE MESSAGE HINT DATA
    python3 sdk_json.py truncate MAX_BYTES PATH < value.json

Runs as a plain script with only the standard library: it is not part of toolkiln's
package API and imports nothing from it.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Unsupported(Exception):
    pass


def main(argv: list[str]) -> int:
    command, *rest = argv or [""]
    if command == "escape":
        print(json.dumps(rest[0] if rest else "", ensure_ascii=False), end="")
        return 0
    if command == "error-object":
        kind, message, hint, data = ([*rest, "", "", "", ""])[:4]
        error: dict[str, Any] = {"type": kind or "internal_error", "message": message or "Unknown error"}
        if hint:
            error["hint"] = hint
        if data:
            try:
                error["data"] = json.loads(data)
            except ValueError:
                error["data"] = {"_invalid_json": data}
        print(_dump(error), end="")
        return 0
    text = sys.stdin.read()
    if command == "get":
        return _get(text, rest[0] if rest else ".")
    if command == "compact":
        try:
            print(_dump(json.loads(text)), end="")
        except ValueError:
            return 1
        return 0
    if command == "success":
        print(json.dumps(_success(text, int(rest[0]) if rest and rest[0].isdigit() else 102400)))
        return 0
    if command == "error":
        print(json.dumps(_error(text)))
        return 0
    if command == "truncate":
        print(_dump(_truncate(text, int(rest[0]), rest[1] if len(rest) > 1 else "")))
        return 0
    print(f"sdk_json.py: unknown command {command!r}", file=sys.stderr)
    return 2


def _success(text: str, max_bytes: int) -> dict[str, Any]:
    if not text.strip():
        return _error('{"type":"internal_error","message":"Empty data passed to mcp_result_success"}')
    try:
        data = json.loads(text)
    except ValueError:
        return _error('{"type":"internal_error","message":"Invalid JSON passed to mcp_result_success"}')
    envelope = {"success": True, "result": data}
    shown = _dump(envelope)
    if len(shown.encode()) > max_bytes:
        if isinstance(data, list):
            shown = f"Success: array with {len(data)} items"
        elif isinstance(data, dict):
            shown = f"Success: object with {len(data)} keys"
        else:
            shown = f"Success: {str(data)[:100]}"
    return {"content": [{"type": "text", "text": shown}], "structuredContent": envelope, "isError": False}


def _error(text: str) -> dict[str, Any]:
    try:
        error = json.loads(text) if text.strip() else {"message": "Unknown error (empty error object)"}
    except ValueError:
        error = {"message": "Invalid error JSON passed to mcp_result_error", "raw": text}
    if not isinstance(error, dict):
        error = {"message": "Error payload must be an object", "raw": json.dumps(error)}
    error = {
        **error,
        "type": error.get("type") or "internal_error",
        "message": error.get("message") or "Unknown error",
    }
    message = error["message"] if isinstance(error["message"], str) else json.dumps(error["message"])
    return {
        "content": [{"type": "text", "text": message}],
        "structuredContent": {"success": False, "error": error},
        "isError": True,
    }


def _truncate(text: str, max_bytes: int, path: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {
            "result": None,
            "truncated": False,
            "error": {"type": "invalid_json", "message": "Invalid JSON"},
        }
    size = len(_dump(value).encode())
    keys = [part for part in path.split(".") if part] if path else []
    if not keys and isinstance(value, dict) and isinstance(value.get("results"), list):
        keys = ["results"] if size > max_bytes else []
    if size <= max_bytes:
        return {"result": value, "truncated": False}
    target = value
    for part in keys:
        if not isinstance(target, dict) or part not in target:
            return {"result": None, "truncated": False, "error": {"type": "path_not_found", "message": path}}
        target = target[part]
    if not isinstance(target, list):
        message = f"Response too large ({size} bytes) and cannot be safely truncated (not an array)"
        return {"result": None, "truncated": False, "error": {"type": "output_too_large", "message": message}}
    total, kept = len(target), len(target)
    while kept > 0:
        kept -= 1
        trial = _replace(value, keys, target[:kept])
        if len(_dump(trial).encode()) <= max_bytes:
            return {"result": trial, "truncated": True, "kept": kept, "total": total}
    return {"result": _replace(value, keys, []) if keys else [], "truncated": True, "kept": 0, "total": total}


def _replace(value: Any, keys: list[str], new: Any) -> Any:
    if not keys:
        return new
    return {**value, keys[0]: _replace(value[keys[0]], keys[1:], new)}


# jq, the small part of it that argument filters use -------------------------------

_TOKEN = re.compile(
    r"""\s*(?:(?P<alt>//)|(?P<pipe>\|)|(?P<var>\$[A-Za-z_]\w*)|(?P<field>\.[A-Za-z_]\w*\??)"""
    r"""|(?P<index>\.?\[\s*(?:-?\d+|"(?:[^"\\]|\\.)*")?\s*\]\??)|(?P<dot>\.)"""
    r"""|(?P<call>[A-Za-z_]\w*(?:\(\s*"(?:[^"\\]|\\.)*"\s*\))?)|(?P<literal>"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?"""
    r"""(?:[eE][-+]?\d+)?|\[\s*\]|\{\s*\}))"""
)
_BUILTINS = {"length", "tostring", "tojson", "keys", "type", "not", "empty", "ascii_downcase",
             "ascii_upcase", "tonumber", "values", "true", "false", "null"}  # fmt: skip


def _get(text: str, program: str) -> int:
    try:
        data = json.loads(text) if text.strip() else None
        for value in _run(_parse(program), [data]):
            print(value if isinstance(value, str) else _dump(value))
    except Unsupported as error:
        print(f"mcp_args_get: the filter {program!r} needs jq ({error}); install jq", file=sys.stderr)
        return 3
    except (ValueError, TypeError, KeyError, IndexError) as error:
        print(f"mcp_args_get: {error}", file=sys.stderr)
        return 5
    return 0


def _parse(program: str) -> list[list[list[tuple[str, str]]]]:
    """Pipes of alternatives of term chains: `.a.b // "x" | length`."""
    pipes: list[list[list[tuple[str, str]]]] = [[[]]]
    position = 0
    while position < len(program.rstrip()):
        match = _TOKEN.match(program, position)
        if not match or match.end() == position:
            raise Unsupported(f"cannot read it from {program[position:]!r}")
        position = match.end()
        kind = match.lastgroup or ""
        if kind == "pipe":
            pipes.append([[]])
        elif kind == "alt":
            pipes[-1].append([])
        else:
            pipes[-1][-1].append((kind, match.group(kind).strip()))
    return pipes


def _run(pipes: list[list[list[tuple[str, str]]]], inputs: list[Any]) -> list[Any]:
    values = inputs
    for alternatives in pipes:
        out: list[Any] = []
        for value in values:
            results: list[Any] = []
            for chain in alternatives:
                results = [r for r in _chain(chain, value) if r not in (None, False)] or (
                    _chain(chain, value) if chain is alternatives[-1] else []
                )
                if results:
                    break
            out += results
        values = out
    return values


def _chain(chain: list[tuple[str, str]], value: Any) -> list[Any]:
    values = [value]
    for kind, token in chain:
        values = [result for item in values for result in _step(kind, token, item)]
    return values


def _step(kind: str, token: str, value: Any) -> list[Any]:
    if kind == "dot":
        return [value]
    if kind == "literal":
        return [json.loads(token)]
    if kind == "field":
        optional, name = token.endswith("?"), token[1:].rstrip("?")
        return _index(value, name, optional)
    if kind == "index":
        optional, inner = token.endswith("?"), token.lstrip(".").rstrip("?")[1:-1].strip()
        if not inner:
            items = (
                value
                if isinstance(value, list)
                else list(value.values())
                if isinstance(value, dict)
                else None
            )
            if items is None and not optional:
                raise TypeError(f"cannot iterate over {type(value).__name__}")
            return items or []
        return _index(value, json.loads(inner), optional)
    if kind == "call":
        return _call(token, value)
    raise Unsupported(f"{token} is not supported")


def _index(value: Any, key: Any, optional: bool) -> list[Any]:
    if value is None:
        return [None]
    if isinstance(key, str) and isinstance(value, dict):
        return [value.get(key)]
    if isinstance(key, int) and isinstance(value, list):
        return [value[key] if -len(value) <= key < len(value) else None]
    if optional:
        return []
    raise TypeError(f"cannot index {type(value).__name__} with {key!r}")


def _call(token: str, value: Any) -> list[Any]:
    name, _, argument = token.partition("(")
    if name == "join" and argument:
        separator = json.loads(argument.rstrip(")").strip())
        return [
            separator.join("" if v is None else v if isinstance(v, str) else json.dumps(v) for v in value)
        ]
    if name not in _BUILTINS or argument:
        raise Unsupported(f"{name} is not supported")
    simple: dict[str, Any] = {"true": True, "false": False, "null": None}
    if name in simple:
        return [simple[name]]
    if name == "empty":
        return []
    if name == "values":
        return [] if value is None else [value]
    if name == "not":
        return [value in (None, False)]
    if name == "length":
        return [0 if value is None else abs(value) if isinstance(value, int | float) else len(value)]
    if name == "keys":
        return [sorted(value) if isinstance(value, dict) else list(range(len(value)))]
    if name == "type":
        kinds = {
            bool: "boolean",
            int: "number",
            float: "number",
            str: "string",
            list: "array",
            dict: "object",
        }
        return ["null" if value is None else kinds[type(value)]]
    if name == "tonumber":
        return [value if isinstance(value, int | float) else json.loads(value)]
    if name in ("ascii_downcase", "ascii_upcase"):
        return [value.lower() if name == "ascii_downcase" else value.upper()]
    return [value if isinstance(value, str) and name == "tostring" else _dump(value)]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
