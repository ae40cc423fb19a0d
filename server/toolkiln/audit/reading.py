"""Reading the audit log back: the log and its rotated files, and the denials' own log
beside it (denials.py), merged by time, oldest first."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolkiln.audit.denials import denial_path

_TRIES = 3  # reads of a log that keeps rotating under the reader


def audit_files(path: Path) -> list[Path]:
    """The log's files that exist, newest first: the log, then `.1`, `.2`...; then the
    denials' log's."""
    return [file for file in _all_files(path) if file.exists()]


def read_audit(path: Path, *, tool: str | None = None, tail: int | None = None) -> list[dict[str, Any]]:
    """The records of the log and its rotated files, oldest first (by the time each call
    came in), optionally filtered."""
    if tool is None and tail:
        return read_audit_tail(path, tail)
    records = _consistent(path, lambda files: [r for file in files[::-1] for r in _parsed(_lines(file))])
    records = [record for record in records if tool is None or record.get("tool") == tool]
    return records[-tail:] if tail else records


def read_audit_tail(path: Path, count: int, *, block: int = 64 * 1024) -> list[dict[str, Any]]:
    """The last `count` records, oldest first, reading only the ends of the files (a
    dashboard asks often, and the log and its rotated files may hold 60 MiB)."""

    def read_one(files: list[Path]) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        for file in files:
            records = _parsed(_last_lines(file, count - len(records), block)) + records
            if len(records) >= count:
                break
        return records

    def read(_: list[Path]) -> list[dict[str, Any]]:  # the calls' log, then the denials'
        return read_one(_files_newest_first(path)) + read_one(_files_newest_first(denial_path(path)))

    return _consistent(path, read)[-count:] if count > 0 else []


def _consistent(path: Path, read: Callable[[list[Path]], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """What `read` makes of the log's files, read again if a writer rotated them meanwhile
    (a record would be read twice, or missed), sorted by time (several processes append
    as their calls end)."""
    for _ in range(_TRIES):
        before = _identities(path)
        records = read(_all_files(path))
        if _identities(path) == before:
            break
    return sorted(records, key=lambda record: str(record.get("timestamp", "")))


def _identities(path: Path) -> list[tuple[str, int]]:
    identities = []
    for file in _all_files(path):
        try:
            identities.append((file.name, file.stat().st_ino))
        except FileNotFoundError:
            continue
    return identities


def _all_files(path: Path) -> list[Path]:
    return [*_files_newest_first(path), *_files_newest_first(denial_path(path))]


def _files_newest_first(path: Path) -> list[Path]:
    """The log, then its rotated files (`.1` the newest of those)."""
    rotated = [p for p in path.parent.glob(f"{path.name}.*") if p.suffix[1:].isdigit()]
    return [path, *sorted(rotated, key=lambda p: int(p.suffix[1:]))]


def _parsed(lines: list[bytes]) -> list[dict[str, Any]]:
    records = []
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, or not UTF-8
            continue  # a line cut by a crash; the rest is still worth reading
        if isinstance(record, dict):
            records.append(record)
    return records


def _lines(file: Path) -> list[bytes]:
    try:
        return file.read_bytes().splitlines()
    except FileNotFoundError:
        return []


def _last_lines(file: Path, count: int, block: int) -> list[bytes]:
    try:
        handle = file.open("rb")
    except FileNotFoundError:
        return []
    with handle:
        position = handle.seek(0, 2)
        chunks: list[bytes] = []  # newest first: each block read and counted once
        newlines = 0
        while position > 0 and newlines <= count:
            step = min(block, position)
            position -= step
            handle.seek(position)
            chunks.append(handle.read(step))
            newlines += chunks[-1].count(b"\n")
    lines = b"".join(reversed(chunks)).splitlines()
    if position > 0:
        lines = lines[1:]  # the first line may be cut
    return lines[-count:] if count > 0 else []
