"""Which files the user opted in to the fallback: `config/server.json`'s
`"discovery": {"fallback": ["bin/", "legacy/convert.sh", "scripts/*.sh"]}`.

Paths and globs relative to the tools folder: `*` and `?` stay inside one folder, `**`
crosses folders, `[abc]` is a class; a folder (`bin/`, or a glob that matches a folder)
means everything under it. Shared by discovery (which reads the key as plain JSON: an
unchanged run imports no models) and build (which drops a fallback tool no longer
opted in), so that neither stage imports the other.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

from toolkiln.errors import ConfigError

SERVER_FILE = "server.json"
_GLOB_PART = re.compile(r"\*\*/?|\*|\?|\[[^/\]]*\]|[^*?\[]+|\[")


def check_fallback_pattern(pattern: str) -> str:
    """A pattern as written in `discovery.fallback`, or ValueError saying what is wrong."""
    if not pattern.strip():
        raise ValueError("an empty pattern; give a path or glob relative to the tools folder ('bin/')")
    if pattern.startswith("/") or pattern.startswith("~"):
        raise ValueError(f"{pattern!r} must be relative to the tools folder ('bin/', not '/opt/bin/')")
    if ".." in pattern.split("/") or "\\" in pattern or "\0" in pattern:
        raise ValueError(f"{pattern!r} must stay inside the tools folder (no '..', no backslash)")
    return pattern


def is_opted_in(relative_path: str, patterns: Sequence[str]) -> bool:
    """Whether `relative_path` (POSIX, relative to the tools folder) is a file a pattern
    names, or lies in a folder one names."""
    if not patterns:
        return False
    parts = relative_path.split("/")
    prefixes = ["/".join(parts[: end + 1]) for end in range(len(parts))]
    return any(_compiled(pattern).fullmatch(prefix) for pattern in patterns for prefix in prefixes)


def read_fallback_patterns(config_dir: Path) -> tuple[str, ...]:
    """`discovery.fallback` of `config_dir/server.json` as plain JSON (no models): empty
    when there is no such file or key; `ConfigError` when the key is malformed."""
    path = config_dir / SERVER_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return ()
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ConfigError(f"{path}: cannot be read as JSON ({error})") from None
    discovery = data.get("discovery") if isinstance(data, dict) else None
    if discovery is None:
        return ()
    patterns = discovery.get("fallback", []) if isinstance(discovery, dict) else None
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise ConfigError(
            f'{path}: discovery.fallback must be a list of paths or globs, e.g. ["bin/", "scripts/*.sh"]'
        )
    try:
        return tuple(check_fallback_pattern(pattern) for pattern in patterns)
    except ValueError as error:
        raise ConfigError(f"{path}: discovery.fallback: {error}") from None


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    pattern = pattern.strip().rstrip("/")
    if pattern in ("", "."):
        return re.compile(r".*", re.DOTALL)
    return re.compile("".join(_translate(_GLOB_PART.findall(pattern.removeprefix("./")))), re.DOTALL)


def _translate(tokens: Iterable[str]) -> Iterable[str]:
    for token in tokens:
        if token.startswith("**"):
            yield "(?:.*/)?" if token.endswith("/") else ".*"
        elif token == "*":
            yield "[^/]*"
        elif token == "?":
            yield "[^/]"
        elif token.startswith("[") and len(token) > 2 and token.endswith("]"):
            body = token[1:-1]
            negated = body.startswith("!")
            body = re.escape(body[1:] if negated else body).replace(r"\-", "-")
            yield f"[{'^/' if negated else ''}{body}]"
        else:
            yield re.escape(token)
