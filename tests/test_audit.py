"""The audit log: redaction, rotation, reading back."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest

from toolkiln.audit import REDACTED, AuditLog, read_audit, read_audit_tail, redact


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"user": "ada", "pin": "1234"}, {"user": "ada", "pin": REDACTED}),
        ({"password": "p", "api_key": "k"}, dict.fromkeys(("password", "api_key"), REDACTED)),
        ({"Authorization": "x"}, {"Authorization": REDACTED}),
        ({"note": "Bearer abc.def"}, {"note": f"Bearer {REDACTED}"}),
        ({"note": "sk-" + "a" * 30}, {"note": REDACTED}),
        ({"note": "ghp_" + "b" * 36}, {"note": REDACTED}),
        ({"note": "AKIA" + "C" * 16}, {"note": REDACTED}),
        ({"note": "eyJhbGciOiJI.eyJzdWIiOiIx.c2lnbmF0dXJl"}, {"note": REDACTED}),
        ({"nested": {"token": "t", "keep": 1}, "list": ["sk-" + "d" * 20, "plain"]},
         {"nested": {"token": REDACTED, "keep": 1}, "list": [REDACTED, "plain"]}),
        ({"tokens_used": 0, "secret_mode": False}, {"tokens_used": 0, "secret_mode": False}),
        ({"message": "an ordinary sentence", "count": 3}, {"message": "an ordinary sentence", "count": 3}),
    ],
)  # fmt: skip
def test_redaction(arguments: dict[str, Any], expected: dict[str, Any]) -> None:
    assert redact(arguments) == expected


def test_parameters_marked_secret_are_redacted_whatever_their_name() -> None:
    assert redact({"code": "1234", "x": "y"}, ["code"]) == {"code": REDACTED, "x": "y"}


def test_records_are_json_lines_with_a_timestamp(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "logs" / "audit.jsonl")
    log.record(event="tools/call", tool="echo", success=True)
    log.close()
    [line] = (tmp_path / "logs" / "audit.jsonl").read_text().splitlines()
    record = json.loads(line)
    assert record["event"] == "tools/call" and record["tool"] == "echo" and record["success"] is True
    assert record["timestamp"].endswith("+00:00")


def test_a_record_prepared_ahead_is_one_line_with_its_own_time(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    prepared = log.prepare(0.25, event="tools/call", arguments={"note": "é"})  # made while the tool runs
    log.record(prepared, success=True, exit_code=0)
    log.record(log.prepare(event="denied"))
    log.close()
    first, second = read_audit(tmp_path / "audit.jsonl")
    assert first == {
        "timestamp": "1970-01-01T00:00:00.250+00:00",
        "event": "tools/call",
        "arguments": {"note": "é"},
        "success": True,
        "exit_code": 0,
        "server": {"host": socket.gethostname(), "pid": os.getpid()},  # which server wrote it
    }
    assert second["event"] == "denied"


def test_the_log_rotates_by_size_and_reads_back_in_order(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, max_bytes=2000, backups=3)
    for index in range(200):
        log.record(event="tools/call", tool="t", index=index, padding="x" * 50)
    log.close()
    files = sorted(p.name for p in tmp_path.iterdir())
    rotated = ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2", "audit.jsonl.3"]
    assert files == [*rotated, "audit.jsonl.lock"]  # the lock: one rotation at a time
    assert all((tmp_path / name).stat().st_size <= 2000 for name in rotated)
    records = read_audit(path)
    indexes = [record["index"] for record in records]
    assert indexes == sorted(indexes)
    assert indexes[-1] == 199
    assert [r["index"] for r in read_audit(path, tail=3)] == [197, 198, 199]


def test_the_log_is_private_and_two_writers_leave_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    first, second = AuditLog(path), AuditLog(path)  # e.g. a server and `toolkiln call`
    for index in range(50):
        first.record(writer=1, index=index, padding="x" * 100)
        second.record(writer=2, index=index)
    first.close()
    second.close()
    assert path.stat().st_mode & 0o777 == 0o600  # arguments are in it
    records = read_audit(path)
    assert len(records) == 100
    assert [r["index"] for r in records if r["writer"] == 2] == list(range(50))


def test_with_no_backups_the_log_starts_over(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, max_bytes=500, backups=0)
    for index in range(40):
        log.record(index=index, padding="x" * 50)
    log.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit.jsonl", "audit.jsonl.lock"]
    assert path.stat().st_size <= 500 and read_audit(path)[-1]["index"] == 39


def test_a_full_disk_is_logged_once_and_never_stops_a_call(caplog: pytest.LogCaptureFixture) -> None:
    log = AuditLog(Path("/dev/full"))  # every write fails with ENOSPC
    for _ in range(3):
        log.record(event="tools/call", tool="echo")
    log.close()
    [message] = [r.getMessage() for r in caplog.records]
    assert "cannot write the audit log /dev/full" in message and "space" in message


def test_reading_filters_by_tool_and_skips_a_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_text('{"tool": "a", "n": 1}\n{"tool": "b", "n": 2}\n{"tool": "a", "n"\n')
    assert read_audit(path, tool="a") == [{"tool": "a", "n": 1}]


def test_the_tail_reads_only_the_ends_across_rotated_files(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, max_bytes=2000, backups=3)
    for index in range(200):
        log.record(event="tools/call", tool="t", index=index, padding="x" * 50)
    log.close()
    everything = read_audit(path)
    for count in (1, 5, 30, len(everything), len(everything) + 10):
        tail = read_audit_tail(path, count, block=256)  # small blocks: lines cut across them
        assert tail == everything[-count:], count
    assert read_audit_tail(path, 0) == []
    assert read_audit_tail(tmp_path / "none.jsonl", 5) == []
