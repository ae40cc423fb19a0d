"""Issue 16, holes 8 and 9: the audit log loses no record when several servers write it,
no record grows past a bound, and no secret reaches it (the server's own token least of
all). Real servers on one config folder: one over HTTP, one over stdio."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from click.testing import CliRunner

from tests.conftest import MakeTool
from tests.serve.http_server import http_server
from tests.serve.stdio_server import connect
from toolkiln.audit import MAX_RECORD_BYTES, REDACTED, AuditLog, audit_files, read_audit, redact
from toolkiln.build.merge import build_catalog
from toolkiln.cli import cli
from toolkiln.discover import discover_tools

ECHO = """\
#!/bin/bash
# Tool: echo
# Description: Print a message back
# @param message: What to print (type: string, required: true)
printf '%s\\n' "$message"
"""
FAIL = """\
#!/bin/bash
# Tool: fail
# Description: Fail with a message (N times on one line), as a rich result
# @param message: What to print (type: string, required: true)
# @param times: How many times (type: integer)
printf '{"isError": true, "content": [{"type": "text", "text": "'
for _ in $(seq "${times:-1}"); do printf '%s' "$message"; done
printf '"}]}\\n'
"""
ROTATE_AT = 4096  # bytes: a rotation every ten records or so
ROUNDS = 2
BUSY_CALLS = 100  # a round's calls of the busy server: ten rotations, more than five old files hold
PADDING = "p" * 300


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("echo.sh", ECHO)
    make_tool("fail.sh", FAIL)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


def rpc(base_url: str, token: str, name: str, arguments: dict[str, Any]) -> httpx2.Response:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    return httpx2.post(f"{base_url}/rpc", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=60)


# --- hole 8: several writers, rotation, and bounded records ------------------------------


@pytest.mark.anyio
async def test_a_stdio_and_an_http_server_on_one_log_lose_no_record(served: Path, tmp_path: Path) -> None:
    """The stdio server is busy and rotates the log again and again; the HTTP server calls
    now and then. Before: it kept writing to the file it had opened, renamed and at last
    deleted by the other's rotations, and its records went with it."""
    state = tmp_path / "state"
    log = state / "audit.jsonl"
    sizes = ("--audit-max-bytes", str(ROTATE_AT))
    written: list[str] = []  # every call's message, in the order made
    with http_server(served, state, *sizes) as http:
        async with connect(served, "legacy", "--audit-log", str(log), *sizes) as stdio:
            for round_ in range(ROUNDS):
                for index in range(BUSY_CALLS):  # more than six rotations: a whole log's worth
                    written.append(f"stdio {round_}.{index}")
                    await stdio.call_tool("echo", {"message": f"{written[-1]} {PADDING}"})
                written.append(f"http {round_}")
                response = await anyio.to_thread.run_sync(
                    lambda m=written[-1]: rpc(
                        http.base_url, http.token, "echo", {"message": f"{m} {PADDING}"}
                    )
                )
                assert response.status_code == 200
                newest = read_audit(log, tail=1)[0]["arguments"]["message"]
                assert newest.startswith(f"{written[-1]} "), newest  # not in a renamed, deleted file
        dashboard = httpx2.get(f"{http.base_url}/dashboard/audit", headers=http.auth())
    kept = [" ".join(record["arguments"]["message"].split()[:2]) for record in read_audit(log)]
    # What rotation keeps is the newest records, all of them, each once: no gap, no loss.
    assert len(kept) >= 30 and kept == written[-len(kept) :]  # six files of ~7 records
    result = CliRunner().invoke(cli, ["audit", "--audit-log", str(log), "--json", "--tail", "2"])
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["arguments"]["message"].split()[:2] for line in result.output.splitlines()] == [
        ["stdio", f"{ROUNDS - 1}.{BUSY_CALLS - 1}"],
        ["http", str(ROUNDS - 1)],
    ]
    assert f"http {ROUNDS - 1} " in dashboard.text  # the latest call, whoever served it


def test_a_writer_holding_a_rotated_file_reopens_it(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    busy, idle = AuditLog(path, max_bytes=2000), AuditLog(path, max_bytes=2000)
    idle.record(writer="idle", index=0)
    for index in range(150):  # `busy` rotates the file `idle` holds away, and deletes it
        busy.record(writer="busy", index=index, padding="x" * 80)
    idle.record(writer="idle", index=1)
    busy.record(writer="busy", index=150)
    busy.close()
    idle.close()
    assert [(r["writer"], r["index"]) for r in read_audit(path, tail=2)] == [("idle", 1), ("busy", 150)]
    assert all(p.stat().st_size <= 2000 for p in tmp_path.glob("audit.jsonl*"))


def test_a_log_rotated_to_nothing_by_another_writer_is_made_again(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    first, second = AuditLog(path, max_bytes=1024, backups=0), AuditLog(path, max_bytes=1024, backups=0)
    for index in range(30):
        first.record(index=index, padding="x" * 100)
    second.record(index="last")
    assert read_audit(path)[-1]["index"] == "last"


def test_a_huge_value_becomes_a_bounded_record_with_a_marker(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    huge = "A" * 120_000_000
    log.record(
        log.prepare(
            event="tools/call", client=huge, tool=huge, arguments={"data": huge, "many": ["é" * 3000] * 500}
        ),
        error="boom " + huge,
    )
    log.record(event="tools/call", arguments={f"key{i}": "v" * 100 for i in range(100_000)})
    log.close()
    lines = (tmp_path / "audit.jsonl").read_bytes().splitlines()
    assert len(lines) == 2 and all(len(line) <= MAX_RECORD_BYTES for line in lines)
    first, second = (json.loads(line) for line in lines)
    assert "more characters cut]" in json.dumps(first)
    assert "119997952 more characters cut" in first["arguments"] or "more characters cut" in str(
        first["arguments"]
    )
    assert first["error"].startswith("boom AAAA") and "more characters cut]" in first["error"]
    assert "more characters cut]" in second["arguments"]


def test_a_real_server_cuts_a_huge_argument_and_output(served: Path, tmp_path: Path) -> None:
    big = "B" * 100_000  # a tool's argument is at most 128 KiB; its output may be more
    with http_server(served, tmp_path / "state") as server:
        response = rpc(server.base_url, server.token, "fail", {"message": big, "times": 2})
        assert response.status_code == 200 and len(response.text) > 200_000
        lines = server.audit_log.read_bytes().splitlines()
    [line] = lines
    assert len(line) <= MAX_RECORD_BYTES
    record = json.loads(line)
    assert record["arguments"]["message"].endswith(f"…[{100_000 - 2048} more characters cut]")
    assert record["error"].startswith("BBB") and "more characters cut]" in record["error"]


# --- hole 9: secrets -------------------------------------------------------------------

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabcDEF==\n-----END RSA PRIVATE KEY-----"
SECRET_TEXTS = {
    "stripe": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc" * 3,
    "stripe restricted": "rk_test_51H8xYzAbCdEfGhIjKlMnOp",
    "github fine-grained": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW",
    "github classic": "ghp_" + "a1B2" * 9,
    "gitlab": "glpat-xxxxXXXX1234yyyyZZZZ",
    "google": "AIzaSyA-1234567890abcdefghijklmnopqrstu",
    "aws key id": "AKIAIOSFODNN7EXAMPLE",
    "aws secret alone": AWS_SECRET,
    "openai": "sk-proj-" + "Ab3" * 15,
    "anthropic": "sk-ant-api03-" + "xY9" * 20,
    "slack bot": "xoxb-123456789012-1234567890123-abcdefABCDEF",
    "slack webhook": "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX",
    "jwt": JWT,
    "npm": "npm_" + "a1" * 18,
    "sendgrid": "SG." + "a" * 22 + "." + "b" * 43,
}
SECRETS_IN_TEXT = [
    ("connect to postgres://admin:SuperSecret@db/app now", "SuperSecret"),
    ("mysql://root:pa55word@127.0.0.1:3306/x", "pa55word"),
    ("redis://:hunter22@cache:6379", "hunter22"),
    ("https://deploy:t0ps3cret@git.example.com/repo.git", "t0ps3cret"),
    ("login with user=ada password=hunter2 then go", "hunter2"),
    ('config {"db_password": "s3cr3t!", "user": "ada"}', "s3cr3t!"),
    ("export AWS_SECRET_ACCESS_KEY=" + AWS_SECRET, AWS_SECRET),
    ("curl -H 'Authorization: Bearer x' https://api.example.com", "Bearer x"),
    ("Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"),
    ("the header was bearer abc123.def456-ghi", "abc123.def456-ghi"),
    ("GET /cb?code=1&access_token=ya29a0AfH6SMBx&state=2", "ya29a0AfH6SMBx"),
    ("key file:\n" + PEM + "\nend", "MIIEowIBAAKCAQEA7"),
    ("a key cut short: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "b3BlbnNzaC1rZXkt"),
    ("token " + JWT, "dozjgNryP4J3jVmNHl0w5N"),
]
HARMLESS = [
    "an ordinary sentence about passwords and tokens",
    "the bearer of bad news is the bearer instrument",
    "Supercalifragilisticexpialidociousandmorewordsthatgoonforever",
    "git sha 3f786850e387550fdab836ed7e6dc881de23001b and sha256 " + "ab12" * 16,
    "https://example.com:8080/path?q=1&page=2",
    "/home/ada/projects/toolkiln/server/toolkiln/audit/redaction.py",
    "TheQuickBrownFoxJumpsOverTheLazyDogAgain",
    "task-management-and-more-words-here",
    "authorization_required is false; author=ada",
    "max_tokens: 1500",
]


@pytest.mark.parametrize("name", sorted(SECRET_TEXTS))
def test_a_credential_is_redacted_alone_and_inside_a_longer_text(name: str) -> None:
    secret = SECRET_TEXTS[name]
    assert redact({"note": secret}) == {"note": REDACTED}
    cleaned = redact({"note": f"here: {secret} (do not share)"})["note"]
    assert secret not in cleaned and REDACTED in cleaned and cleaned.startswith("here: ")


@pytest.mark.parametrize(("text", "secret"), SECRETS_IN_TEXT)
def test_a_credential_in_context_is_redacted(text: str, secret: str) -> None:
    cleaned = redact({"note": text}, known=())["note"]
    assert secret not in cleaned and REDACTED in cleaned


def test_a_url_keeps_its_user_and_host() -> None:
    assert redact({"note": "postgres://admin:SuperSecret@db"}) == {"note": f"postgres://admin:{REDACTED}@db"}


@pytest.mark.parametrize("text", HARMLESS)
def test_harmless_text_is_kept(text: str) -> None:
    assert redact({"note": text}) == {"note": text}


SECRET_NAMES = [
    "pwd", "pin", "password", "PASSWORD", "apiKey", "X-Api-Key", "client_secret", "Cookie", "Set-Cookie",
    "Authorization", "sessionId", "session", "private_key", "aws_secret_access_key", "accessToken",
    "authToken", "credentials", "passphrase", "otp", "db_password", "auth",
]  # fmt: skip
HARMLESS_NAMES = [
    "user",
    "author",
    "tokens_used",
    "token_type",
    "secret_mode",
    "password_min_length",
    "tokenizer",
]


def test_values_under_a_secret_name_are_redacted_at_any_depth() -> None:
    for name in SECRET_NAMES:
        assert redact({name: "v"}) == {name: REDACTED}, name
        assert redact({"a": {"b": [{name: 1234}]}}) == {"a": {"b": [{name: REDACTED}]}}, name
    for name in HARMLESS_NAMES:
        assert redact({"a": {name: "plain"}}) == {"a": {name: "plain"}}, name
    assert redact({"credentials": {"user": "u", "password": "p"}}) == {"credentials": REDACTED}
    assert redact({"auth": None, "password": "", "secret": False}) == {
        "auth": None,
        "password": "",
        "secret": False,
    }


def test_a_secret_in_a_key_or_across_the_cut_is_redacted() -> None:
    token = "ghp_" + "Z9" * 20
    cleaned = redact({token: "v", "long": "x" * 2040 + " " + token + " " + "y" * 100})
    assert token not in json.dumps(cleaned)
    assert not any(part in cleaned["long"] for part in ("ghp_Z9", token[:8]))


@pytest.mark.anyio
async def test_the_servers_own_token_never_reaches_the_log(served: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    with http_server(served, state) as server:
        token = server.token
        rpc(server.base_url, token, "echo", {"message": f"the token is {token}!"})
        rpc(server.base_url, token, "fail", {"message": f"{token} (printed by the tool)"})
        rpc(server.base_url, token, "echo", {"message": "x", f"k{token}": {"deep": [token]}})
        httpx2.get(f"{server.base_url}/x/{token}")  # denied, and its path audited
        httpx2.get(f"{server.base_url}/health", headers={"Host": f"{token}.example"})  # its Host too
        xdg_token = "Xq" + secrets.token_urlsafe(30)
        (tmp_path / "xdg" / "toolkiln").mkdir(parents=True)
        (tmp_path / "xdg" / "toolkiln" / "token").write_text(xdg_token + "\n")
        async with connect(
            served, "legacy", "--audit-log", str(server.audit_log), XDG_CONFIG_HOME=str(tmp_path / "xdg")
        ) as stdio:
            await stdio.call_tool("echo", {"message": f"stdio knows {xdg_token} too"})
            await stdio.call_tool("fail", {"message": f"{xdg_token}"})
    text = "".join(file.read_text() for file in audit_files(server.audit_log))  # the denials' too
    records = read_audit(server.audit_log)
    assert len(records) == 7
    assert token not in text and xdg_token not in text
    assert records[0]["arguments"]["message"] == f"the token is {REDACTED}!"
    assert records[1]["error"] == f"{REDACTED} (printed by the tool)"
    assert records[3]["event"] == "denied" and records[3]["path"] == f"/x/{REDACTED}"
    assert records[4]["status"] == 421 and f"Host '{REDACTED}.example'" in records[4]["error"]
    assert records[5]["arguments"]["message"] == f"stdio knows {REDACTED} too"
    shown = CliRunner().invoke(cli, ["audit", "--audit-log", str(server.audit_log), "--json"]).output
    assert token not in shown and xdg_token not in shown and shown.count(REDACTED) >= 6


@pytest.mark.anyio
async def test_secrets_in_arguments_are_redacted_by_the_real_server(served: Path, tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    async with connect(served, "legacy", "--audit-log", str(log)) as stdio:
        for name in sorted(SECRET_TEXTS):
            await stdio.call_tool("echo", {"message": f"{name}: {SECRET_TEXTS[name]}"})
        for text, _ in SECRETS_IN_TEXT:
            await stdio.call_tool("echo", {"message": text})
    written = log.read_text()
    assert all(secret not in written for secret in SECRET_TEXTS.values())
    assert all(secret not in written for _, secret in SECRETS_IN_TEXT)
    assert len(read_audit(log)) == len(SECRET_TEXTS) + len(SECRETS_IN_TEXT)
