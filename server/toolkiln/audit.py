"""The audit trail: one JSON line per tool call and per denied request.

The file is cut at a size and a few old files are kept, as the standard library's
`RotatingFileHandler` does, so it can never fill the disk. Argument values of parameters
marked `secret`, and anything that looks like a credential, are redacted before they are
written.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REDACTED = "[redacted]"
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_BACKUPS = 5

# Argument names that carry credentials, and values that look like one whatever the name.
_SECRET_NAME = re.compile(
    r"pass(word|wd|phrase)?|secret|token|api[_-]?key|auth|credential|private[_-]?key|(^|[_-])(pin|otp)([_-]|$)",
    re.I,
)
_SECRET_VALUE = re.compile(
    r"^(Bearer\s+\S+|Basic\s+\S+|sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}"
    r"|AKIA[0-9A-Z]{16}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----.*)$",
    re.S,
)


def redact(arguments: Mapping[str, Any], secret_names: Iterable[str] = ()) -> dict[str, Any]:
    """A copy of `arguments` safe to write down: secrets replaced, nested values included."""
    secrets = set(secret_names)
    return {
        key: REDACTED if key in secrets else _redact_value(key, value) for key, value in arguments.items()
    }


def _redact_value(key: str, value: Any) -> Any:
    if _SECRET_NAME.search(key) and value not in (None, "", False):
        return REDACTED
    if isinstance(value, str):
        return REDACTED if _SECRET_VALUE.match(value.strip()) else value
    if isinstance(value, Mapping):
        return {k: _redact_value(str(k), v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_value(key, item) for item in value]
    return value


class AuditLog:
    """Appends audit records to a size-rotated JSON-lines file.

    One `write` per record on an `O_APPEND` descriptor: each line lands whole at the end
    even with another writer on the file, and the size check is the offset that write
    returns. (`logging`'s rotating handler cost ~0.2 ms a record inside a busy server:
    a LogRecord, two stats and a seek per line.)"""

    def __init__(
        self, path: Path, max_bytes: int = DEFAULT_MAX_BYTES, backups: int = DEFAULT_BACKUPS
    ) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.max_bytes = max_bytes
        self.backups = backups
        self._fd = self._open()
        self._size = os.fstat(self._fd).st_size
        self._failed = False

    def _open(self) -> int:
        return os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)

    @staticmethod
    def prepare(at: float | None = None, **fields: Any) -> str:
        """A record's first fields as JSON, with its time (`at`, seconds since the epoch;
        default now): made ahead of `record`, e.g. while a call's tool runs, so that the
        answer waits only for the rest."""
        when = datetime.now(UTC) if at is None else datetime.fromtimestamp(at, UTC)
        entry = {"timestamp": when.isoformat(timespec="milliseconds"), **fields}
        return json.dumps(entry, ensure_ascii=False, default=str)

    def record(self, prepared: str | None = None, **fields: Any) -> None:
        """Append one record: `prepared` (see `prepare`) and `fields`, or `fields` alone."""
        if prepared is None:
            text = self.prepare(**fields)
        elif fields:  # one JSON object from two: the fields of each are distinct
            text = prepared[:-1] + ", " + json.dumps(fields, ensure_ascii=False, default=str)[1:]
        else:
            text = prepared
        line = (text + "\n").encode()
        try:
            if self._size and self._size + len(line) > self.max_bytes:
                self._rotate()
            os.write(self._fd, line)
            self._size = os.lseek(self._fd, 0, os.SEEK_CUR)
            self._failed = False
        except OSError as error:  # a full disk must not stop the calls, only be told
            if not self._failed:
                logging.getLogger(__name__).error("cannot write the audit log %s: %s", self.path, error)
            self._failed = True

    def _rotate(self) -> None:
        """`audit.jsonl` becomes `.1`, `.1` becomes `.2`, and the oldest goes."""
        for index in range(self.backups - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{index}")
            if older.exists():
                older.replace(self.path.with_name(f"{self.path.name}.{index + 1}"))
        if self.backups:
            self.path.replace(self.path.with_name(f"{self.path.name}.1"))
        else:
            self.path.unlink(missing_ok=True)
        fresh = self._open()
        os.close(self._fd)
        self._fd, self._size = fresh, 0

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def read_audit(path: Path, *, tool: str | None = None, tail: int | None = None) -> list[dict[str, Any]]:
    """The records of the log and its rotated files, oldest first, optionally filtered."""
    if tool is None and tail:
        return read_audit_tail(path, tail)
    records = [record for file in _files_newest_first(path)[::-1] for record in _parsed(_lines(file))]
    records = [record for record in records if tool is None or record.get("tool") == tool]
    return records[-tail:] if tail else records


def read_audit_tail(path: Path, count: int, *, block: int = 64 * 1024) -> list[dict[str, Any]]:
    """The last `count` records, oldest first, reading only the ends of the files (a
    dashboard asks often, and the log and its rotated files may hold 60 MiB)."""
    records: list[dict[str, Any]] = []
    for file in _files_newest_first(path):
        records = _parsed(_last_lines(file, count - len(records), block)) + records
        if len(records) >= count:
            break
    return records[-count:] if count > 0 else []


def _files_newest_first(path: Path) -> list[Path]:
    """The log, then its rotated files (`.1` the newest of those)."""
    rotated = [p for p in path.parent.glob(f"{path.name}.*") if p.suffix[1:].isdigit()]
    return [path, *sorted(rotated, key=lambda p: int(p.suffix[1:]))]


def _parsed(lines: list[bytes]) -> list[dict[str, Any]]:
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:  # not JSON, or not UTF-8
            continue  # a line cut by a crash; the rest is still worth reading
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
        data = b""
        while position > 0 and data.count(b"\n") <= count:
            step = min(block, position)
            position -= step
            handle.seek(position)
            data = handle.read(step) + data
    lines = data.splitlines()
    if position > 0:
        lines = lines[1:]  # the first line may be cut
    return lines[-count:] if count > 0 else []
