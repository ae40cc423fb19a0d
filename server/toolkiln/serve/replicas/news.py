"""The news replicas tell each other on Redis (`<prefix>catalog`): its two kinds, read strictly.

- a switch: `{"id", "from", "kind": "switch", "key", "enabled", "digest"}`: a dashboard
  switch of one tool (serve/replicas/catalog_sync.py);
- a rebuild: `{"id", "from", "kind": "rebuild", "by": "build" | "watch", "digest"}`:
  `toolkiln build`, or a `serve --watch`, wrote a new config/tools.json.

`digest` is the SHA-256 of the tools.json the sender built. News never carries a
catalog, a path or a command: whoever can write to Redis could otherwise make every
replica run code of their choosing. All it can do is name a per-tool config to switch,
or ask a replica to reload its own tools.json from disk. Anything else (unknown keys,
wrong types, a key that is not a tool's name, too long) is not news, and is ignored.
No SDK, no `redis`: `toolkiln build` writes it too.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from toolkiln.vocabulary import TOOL_NAME_PATTERN

MAX_BYTES = 1024  # a news message is ~200 bytes
_ID = re.compile(r"[0-9a-f]{1,64}")
_DIGEST = re.compile(r"[0-9a-f]{64}")
Builder = Literal["build", "watch"]


@dataclass(frozen=True)
class SwitchNews:
    id: str
    sender: str
    key: str
    enabled: bool
    digest: str | None  # None: the sender could not read its tools.json


@dataclass(frozen=True)
class RebuildNews:
    id: str
    sender: str
    by: Builder
    digest: str


News = SwitchNews | RebuildNews


def switch_news(sender: str, key: str, enabled: bool, digest: str | None) -> SwitchNews:
    return SwitchNews(secrets.token_hex(12), sender, key, enabled, digest)


def rebuild_news(sender: str, by: Builder, digest: str) -> RebuildNews:
    return RebuildNews(secrets.token_hex(12), sender, by, digest)


def dump_news(news: News) -> str:
    fields = asdict(news)
    fields["from"] = fields.pop("sender")
    kind = "switch" if isinstance(news, SwitchNews) else "rebuild"
    return json.dumps({**fields, "kind": kind}, separators=(",", ":"))


def read_news(text: Any) -> News | None:
    """The news `text` holds, or None when it is not news of either kind, exactly."""
    if not isinstance(text, str) or len(text) > MAX_BYTES:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not _is_id(data.get("id")) or not _is_id(data.get("from")):
        return None
    kind = data.get("kind", "switch")  # a switch told by a replica of before `kind`
    if kind == "switch" and set(data) - {"kind"} == {"id", "from", "key", "enabled", "digest"}:
        key, enabled, digest = data["key"], data["enabled"], data["digest"]
        if (
            isinstance(key, str)
            and TOOL_NAME_PATTERN.fullmatch(key)
            and isinstance(enabled, bool)
            and (digest is None or _is_digest(digest))
        ):
            return SwitchNews(data["id"], data["from"], key, enabled, digest)
    if (
        kind == "rebuild"
        and set(data) == {"id", "from", "kind", "by", "digest"}
        and data["by"] in ("build", "watch")
        and _is_digest(data["digest"])
    ):
        return RebuildNews(data["id"], data["from"], data["by"], data["digest"])
    return None


def digest_of(catalog_file: Path) -> str | None:
    """The SHA-256 of a tools.json, or None when it cannot be read."""
    try:
        return hashlib.sha256(catalog_file.read_bytes()).hexdigest()
    except OSError:
        return None


def _is_id(value: Any) -> bool:
    return isinstance(value, str) and _ID.fullmatch(value) is not None


def _is_digest(value: Any) -> bool:
    return isinstance(value, str) and _DIGEST.fullmatch(value) is not None
