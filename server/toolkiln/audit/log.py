"""Writing the audit log: one JSON line per record, on a file that rotates by size and
that several processes (a stdio and an HTTP server on one config folder) may share."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import socket
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from toolkiln.audit.denials import DenialBudget, denial_path, shorten
from toolkiln.audit.redaction import MAX_STRING, Redactor, cut_marker

logger = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_BACKUPS = 5
# No record is longer: each value is cut (redaction.py), and a record that is still longer
# (many long fields) has each field cut shorter.
MAX_RECORD_BYTES = 64 * 1024
# One encoder for every record: `json.dumps` with options builds one a call (~2 us of ~7).
_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)


class AuditLog:
    """Appends audit records to a size-rotated JSON-lines file.

    One `write` per record on an `O_APPEND` descriptor: each line lands whole at the end
    even with another writer on the file. Before it, one `stat` of the path: its size
    says whether to rotate, and its inode whether another process rotated the file this
    one holds (then it is reopened, so no record goes on into a renamed or deleted
    file). Rotation holds an `flock` on `<log>.lock`, so two processes never rotate at
    once. (`logging`'s rotating handler cost ~0.2 ms a record inside a busy server: a
    LogRecord, two stats and a seek per line.)"""

    def __init__(
        self,
        path: Path,
        max_bytes: int = DEFAULT_MAX_BYTES,
        backups: int = DEFAULT_BACKUPS,
        known_secrets: Iterable[str] = (),
        *,
        redactor: Redactor | None = None,
        denials: bool = True,
    ) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.max_bytes = max_bytes
        self.backups = backups
        self.redactor = redactor or Redactor(known_secrets)
        self._fd, self._inode = -1, (0, 0)
        self._reopen()
        self._failed = False
        # Denied requests: their own file and budget, so they never rotate calls away (denials.py).
        self.denial_budget = DenialBudget()
        self._keeps_denials = denials
        self._denial_log: AuditLog | None = None  # opened at the first denial
        # Which server wrote a record, unambiguous across machines (replicas may share a
        # log folder): its host and pid, and its instance once the server has one (tasks/owners.py).
        self.server: dict[str, Any] = {"host": socket.gethostname(), "pid": os.getpid()}

    def _reopen(self) -> None:
        fresh = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        if self._fd >= 0:
            os.close(self._fd)
        status = os.fstat(fresh)
        self._fd, self._inode = fresh, (status.st_dev, status.st_ino)

    def prepare(self, at: float | None = None, *, secret_names: Iterable[str] = (), **fields: Any) -> str:
        """A record's first fields as JSON, cleaned (redaction.py), with its time (`at`,
        seconds since the epoch; default now): made ahead of `record`, e.g. while a
        call's tool runs, so that the answer waits only for the rest. `secret_names`:
        arguments redacted whatever their value."""
        when = datetime.now(UTC) if at is None else datetime.fromtimestamp(at, UTC)
        entry = {
            "timestamp": when.isoformat(timespec="milliseconds"),
            **self.redactor.clean_fields(fields, secret_names),
            "server": self.server,
        }
        return _ENCODER.encode(entry)

    def record(self, prepared: str | None = None, **fields: Any) -> None:
        """Append one record: `prepared` (see `prepare`) and `fields`, or `fields` alone."""
        if self._denial_log is not None:  # a minute of denials just ended: its summary
            for summary in self.denial_budget.due():
                self._denial_log.record(**summary)
        if prepared is None:
            text = self.prepare(**fields)
        elif fields:  # one JSON object from two: the fields of each are distinct
            more = _ENCODER.encode(self.redactor.clean_fields(fields))
            text = prepared[:-1] + ", " + more[1:]
        else:
            text = prepared
        line = (text + "\n").encode()
        if len(line) > MAX_RECORD_BYTES:
            line = (_shortened(text) + "\n").encode()
        try:
            self._write(line)
            self._failed = False
        except OSError as error:  # a full disk must not stop the calls, only be told
            if not self._failed:
                logger.error("cannot write the audit log %s: %s", self.path, error)
            self._failed = True

    def record_denial(self, *, client: str | None, status: int, **fields: Any) -> dict[str, Any] | None:
        """Write down a denied request in the denials' file: whole (its values cleaned,
        then cut short) while the minute's budget lasts, else counted for the minute's
        summary (denials.py). Returns what was written whole, or None."""
        log = self._denials()
        whole, due = self.denial_budget.admit(client, status)
        for summary in due:
            log.record(**summary)
        if not whole:
            return None
        # Cleaned before it is cut, so a cut never leaves part of a secret to be seen.
        short = {
            name: shorten(self.redactor.clean_text(value) if isinstance(value, str) else value)
            for name, value in {"client": client, **fields}.items()
        }
        log.record(event="denied", status=status, success=False, **short)
        return short

    def flush_denials(self) -> None:
        """Write the summary of denials not yet written (the minute is over, or at close)."""
        if self._denial_log is not None:
            for summary in self.denial_budget.flush():
                self._denial_log.record(**summary)

    def _denials(self) -> AuditLog:
        if not self._keeps_denials:
            return self
        if self._denial_log is None:
            self._denial_log = AuditLog(
                denial_path(self.path), self.max_bytes, self.backups, redactor=self.redactor, denials=False
            )
            self._denial_log.server = self.server
        return self._denial_log

    def _write(self, line: bytes) -> None:
        try:
            status = os.stat(self.path)
        except FileNotFoundError:  # rotated away (with no backups) by another process
            self._reopen()
            status = os.fstat(self._fd)
        if (status.st_dev, status.st_ino) != self._inode:
            self._reopen()  # another process rotated it; `status` is the new file's
        if status.st_size and status.st_size + len(line) > self.max_bytes:
            self._rotate(len(line))
        os.write(self._fd, line)

    def _rotate(self, needed: int) -> None:
        """`audit.jsonl` becomes `.1`, `.1` becomes `.2`, and the oldest goes; unless
        another process did it while this one waited for the lock."""
        with self._rotation_lock():
            status = os.fstat(self._fd)
            try:
                current = os.stat(self.path)
            except FileNotFoundError:
                current = None
            if current is None or (current.st_dev, current.st_ino) != self._inode:
                self._reopen()  # rotated meanwhile: write to the new file
                if current is not None and current.st_size + needed <= self.max_bytes:
                    return
                status = os.fstat(self._fd)
            if not status.st_size:
                return
            for index in range(self.backups - 1, 0, -1):
                older = self.path.with_name(f"{self.path.name}.{index}")
                if older.exists():
                    older.replace(self.path.with_name(f"{self.path.name}.{index + 1}"))
            if self.backups:
                self.path.replace(self.path.with_name(f"{self.path.name}.1"))
            else:
                self.path.unlink(missing_ok=True)
            self._reopen()

    @contextmanager
    def _rotation_lock(self) -> Iterator[None]:
        lock = self.path.with_name(self.path.name + ".lock")
        descriptor = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            yield
        finally:
            os.close(descriptor)  # releases the lock

    def close(self) -> None:
        if self._denial_log is not None:
            self.flush_denials()
            self._denial_log.close()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _shortened(text: str) -> str:
    """A record longer than `MAX_RECORD_BYTES` (many long fields) with each field's JSON
    cut to a few hundred characters: still one record, with its time and outcome."""
    entry = json.loads(text)
    share = max(64, min(MAX_STRING, MAX_RECORD_BYTES // (8 * max(1, len(entry)))))
    for name, value in entry.items():
        dumped = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if len(dumped) > share:
            entry[name] = dumped[:share] + cut_marker(len(dumped) - share)
    return json.dumps(entry, ensure_ascii=False)
