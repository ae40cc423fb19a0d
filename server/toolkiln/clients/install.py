"""Merge one server entry into an MCP client's config file, idempotently.

Only the entry of that name is added or replaced: other servers and every other key
of the file are kept as they are, in their order. A file that would change is first
copied to a timestamped backup beside it; a file that already holds the same entry is
not touched at all. Writes are atomic, and the file keeps its mode (a new file that
holds a token is made private, mode 0600).
"""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from toolkiln.errors import ConfigError
from toolkiln.files import write_json_atomic

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class InstallResult:
    path: Path
    changed: bool  # False: the same entry was there already
    created: bool  # the file did not exist
    replaced: bool  # an entry of that name was there, and differed
    backup: Path | None


def install_server(
    path: Path, servers_key: str, name: str, entry: dict[str, Any], *, private: bool = False
) -> InstallResult:
    """Put `entry` under `servers_key.name` in the JSON file at `path`."""
    if path.is_symlink():  # a dotfile kept elsewhere: write where it points, keep the link
        path = path.resolve()
    data = _read_config(path)
    created = data is None
    config: dict[str, Any] = {} if data is None else data
    servers = config.setdefault(servers_key, {})
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: {servers_key!r} is not a JSON object; fix it by hand first")
    if servers.get(name) == entry:
        return InstallResult(path, changed=False, created=False, replaced=False, backup=None)
    replaced = name in servers
    backup = None if created else _back_up(path)
    servers[name] = entry
    write_json_atomic(path, config, mode=0o600 if created and private else None, sort_keys=False)
    logger.info("wrote the server %r into %s", name, path)
    return InstallResult(path, changed=True, created=created, replaced=replaced, backup=backup)


def _read_config(path: Path) -> dict[str, Any] | None:
    """The file's JSON object; None when there is no file (an empty file counts as {})."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(
            f"{path}:{error.lineno}: not plain JSON ({error.msg}; comments and trailing commas "
            "count too), so it was left alone: add the snippet that `toolkiln config` prints by hand"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: holds a JSON {type(data).__name__}, not an object; fix it by hand first")
    return data


def _back_up(path: Path) -> Path:
    """A copy of `path` beside it, named after the time; never over an earlier backup."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{path.name}.{stamp}.bak")
    number = 1
    while backup.exists():
        number += 1
        backup = path.with_name(f"{path.name}.{stamp}-{number}.bak")
    shutil.copy2(path, backup)
    return backup
