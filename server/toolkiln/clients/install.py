"""Merge one server entry into an MCP client's config file, idempotently.

Only the entry of that name is added or replaced: other servers and every other key
of the file are kept as they are, in their order, with the file's comments and layout
(JSON with comments and trailing commas, and TOML, alike: syntax.py).
A file that would change is first copied to a timestamped backup beside it; a file that
already holds the same entry is not touched at all. Writes are atomic.

Modes: a file keeps its mode, except that a file given a bearer token (`private`) loses
every permission of group and others (a new one is created 0600, never readable by
others even for a moment). Backups are always 0600: the previous file may hold a token,
or another server's API key. When the file stays readable by others all the same (a
filesystem without Unix modes, a file toolkiln may not chmod), the result says so.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from toolkiln.clients.syntax import SYNTAXES, SyntaxName, plain
from toolkiln.files import write_text_atomic

logger = logging.getLogger(__name__)

OTHERS = 0o077  # the permission bits of group and others


@dataclass(frozen=True)
class InstallResult:
    path: Path
    changed: bool  # False: the same entry was there already
    created: bool  # the file did not exist
    replaced: bool  # an entry of that name was there, and differed
    backup: Path | None
    made_private: int | None = None  # the mode the file had before it was made private
    exposed: int | None = None  # the file holds a token and others can still read it: its mode


def install_server(
    path: Path,
    servers_key: str,
    name: str,
    entry: dict[str, Any],
    *,
    private: bool = False,
    syntax: SyntaxName = "json",
) -> InstallResult:
    """Put `entry` under `servers_key.name` in the config file at `path`."""
    if path.is_symlink():  # a dotfile kept elsewhere: write where it points, keep the link
        path = path.resolve()
    form = SYNTAXES[syntax]
    document = form.read(path)
    created = document is None
    config = form.parse(path, "") if document is None else document
    servers = form.servers(config, servers_key, path)
    if plain(servers.get(name)) == entry:
        made_private, exposed = _make_private(path) if private else (None, None)
        return InstallResult(path, False, False, False, None, made_private, exposed)
    replaced = name in servers
    old_mode = None if created else _mode(path)
    backup = None if created else _back_up(path)
    servers[name] = form.to_item(entry)
    mode = None
    if private:
        mode = 0o600 if old_mode is None else old_mode & ~OTHERS
    write_text_atomic(path, form.render(config), mode=mode)
    logger.info("wrote the server %r into %s", name, path)
    made_private = old_mode if private and old_mode is not None and old_mode & OTHERS else None
    exposed = _exposed(path) if private else None
    return InstallResult(path, True, created, replaced, backup, made_private, exposed)


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def _make_private(path: Path) -> tuple[int | None, int | None]:
    """(the mode it had, when it was made private; its mode, when others can still read it)."""
    mode = _mode(path)
    if not mode & OTHERS:
        return None, None
    try:
        os.chmod(path, mode & ~OTHERS)
    except OSError as error:
        logger.warning("cannot make %s private: %s", path, error.strerror)
        return None, mode
    exposed = _exposed(path)
    return (mode if exposed is None else None), exposed


def _exposed(path: Path) -> int | None:
    mode = _mode(path)
    return mode if mode & OTHERS else None


def _back_up(path: Path) -> Path:
    """A private copy of `path` beside it, named after the time; never over another file."""
    content = path.read_bytes()
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    number = 1
    while True:
        suffix = stamp if number == 1 else f"{stamp}-{number}"
        backup = path.with_name(f"{path.name}.{suffix}.bak")
        try:  # created 0600, and only if no file has that name (O_EXCL: not a symlink either)
            descriptor = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            number += 1
            continue
        break
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(content)
    stat = path.stat()
    os.utime(backup, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    return backup
