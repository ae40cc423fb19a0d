"""Issue 30, findings 2 and 7: denied requests cannot push the calls out of the audit log,
and a denial's reason is written whole (only a secret inside it is redacted). A real
server, real requests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.conftest import MakeTool
from tests.serve.http_server import RunningServer, http_server
from toolkiln.audit import REDACTED, audit_files, read_audit, redact
from toolkiln.audit.denials import DENIAL_FIELD, FULL_OVERALL, FULL_PER_CLIENT, denial_path
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

ECHO = """\
#!/bin/bash
# Tool: echo
# Description: Print a message back
# @param message: What to print (type: string, required: true)
printf '%s\\n' "$message"
"""
ROTATE_AT = 20_000  # bytes: the log and its five old files hold ~120 kB
CALLS = 5
FLOOD = 400  # denials of ~4.3 kB each on main: ~1.7 MB, fourteen times what the files hold
LONG = "a" * 3000


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("echo.sh", ECHO)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


def call_echo(server: RunningServer, message: str) -> None:
    response = server.rpc("tools/call", {"name": "echo", "arguments": {"message": message}}, timeout=60)
    assert response.status_code == 200 and "error" not in response.json(), response.text


def calls_in(records: list[dict[str, Any]]) -> list[str]:
    return [record["arguments"]["message"] for record in records if record.get("tool") == "echo"]


def test_a_flood_of_long_denials_leaves_every_call_record(served: Path, tmp_path: Path) -> None:
    with http_server(served, tmp_path / "state", "--audit-max-bytes", str(ROTATE_AT)) as server:
        for index in range(CALLS):
            call_echo(server, f"call {index}")
        with httpx2.Client(timeout=30) as client:
            for index in range(FLOOD):
                headers = {"Host": LONG} if index % 2 else {}
                answer = client.get(f"{server.base_url}/{LONG}", headers=headers)
                assert answer.status_code in (401, 421)
        call_echo(server, "after the flood")
        server.stop()  # SIGTERM: the denials counted are summarised as the server stops
    records = read_audit(server.audit_log)
    assert calls_in(records) == [*(f"call {i}" for i in range(CALLS)), "after the flood"]
    # The calls' own file was never rotated by the denials.
    calls_file = [json.loads(line) for line in server.audit_log.read_text().splitlines()]
    assert len(calls_file) == CALLS + 1 and not server.audit_log.with_name("audit.jsonl.1").exists()
    whole = [record for record in records if record.get("event") == "denied"]
    summaries = [record for record in records if record.get("event") == "denied_summary"]
    assert len(whole) == 2 * FULL_PER_CLIENT <= FULL_OVERALL  # one client, two statuses: its budget
    assert all(len(str(value)) <= DENIAL_FIELD + 40 for record in whole for value in record.values())
    assert sum(summary["count"] for summary in summaries) == FLOOD - len(whole)
    assert summaries[-1]["clients"] == {"127.0.0.1": FLOOD - len(whole)}
    assert f"{FLOOD - len(whole)} more denials" in summaries[-1]["error"]
    denied_bytes = sum(file.stat().st_size for file in audit_files(denial_path(server.audit_log)))
    assert denied_bytes < 16 * 1024, denied_bytes  # not ~1.7 MB


# --- finding 7: a reason is written whole -----------------------------------------------


DIGEST = 'username="ada", response="6629fae49393a05397450978507c4ef1"'
AWS = (
    "Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
    "SignedHeaders=content-type;host;x-amz-date, "
    "Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
)
MESSAGES = [  # (text, its secret: all that is replaced; None: nothing is)
    ("missing or wrong bearer token (Authorization: Bearer <token>)", None),
    ("log in first (or send Authorization: Bearer <token>)", None),
    ("curl -H 'Authorization: Bearer s3cr3t-t0k' https://api.example.com/v1", "s3cr3t-t0k"),
    ("Authorization: Basic dXNlcjpwYXNz== and then the rest", "dXNlcjpwYXNz=="),
    (f"Proxy-Authorization: Digest {DIGEST}; retry", DIGEST),
    ('{"authorization": "Bearer tok-12345", "user": "ada"}', "tok-12345"),
    ("GET /cb?authorization=abc123def&page=2 HTTP/1.1", "abc123def"),
    ("Authorization: s3cretvalue, then more words", "s3cretvalue"),
    (f"curl -H 'Authorization: AWS4-HMAC-SHA256 {AWS}' https://iam.amazonaws.com/", AWS),
]


@pytest.mark.parametrize(("text", "secret"), MESSAGES)
def test_only_the_credentials_of_an_authorization_header_are_redacted(text: str, secret: str | None) -> None:
    expected = text if secret is None else text.replace(secret, REDACTED)
    assert redact({"note": text})["note"] == expected


def test_a_401_is_audited_with_its_whole_reason(served: Path, tmp_path: Path) -> None:
    with http_server(served, tmp_path / "state") as server:
        assert server.rpc("ping", headers={"Authorization": "Bearer wrong-guess-1"}).status_code == 401
    (denied,) = [record for record in read_audit(server.audit_log) if record.get("event") == "denied"]
    assert denied["error"] == "missing or wrong bearer token (Authorization: Bearer <token>)"
