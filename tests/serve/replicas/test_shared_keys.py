"""The secret replicas derive their requestState keys from (serve/calls/request_state.py): what it
refuses, and what another deployment's or an altered requestState gets.

Real `toolkiln serve --http --stateless` processes and raw 2026-07-28 requests, so the
test holds the sealed `requestState` itself and can carry it elsewhere or alter it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeTool, child_env, tune_tool
from tests.serve.replicas.test_replicas import CAREFUL, replica, write_secret
from tests.serve.tasks_wire import RpcError, http_request
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.serve.calls.request_state import REQUEST_STATE, request_state_security
from toolkiln.state_secret import StateSecret, derive_key

ELICITATION = {"elicitation": {}}
YES = {"confirm": {"action": "accept", "content": {"confirm": True}}}


@pytest.fixture
def careful(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("careful.sh", CAREFUL)
    assert not discover_tools(tools_dir, config_dir).errors
    tune_tool(config_dir, "careful", requires_confirmation=True)
    build_catalog(config_dir, tools_dir)
    return config_dir


def _call(port: int, token: str, **params: Any) -> dict[str, Any]:
    return http_request(
        f"http://127.0.0.1:{port}/mcp", token, "tools/call", {"name": "careful", **params}, ELICITATION
    )


def _asked(port: int, token: str) -> str:
    """The sealed requestState of the confirmation a first call gets."""
    first = _call(port, token, arguments={})
    assert first["resultType"] == "input_required", first
    state: str = first["requestState"]
    return state


def test_a_state_sealed_by_another_deployment_or_altered_is_refused(careful: Path, tmp_path: Path) -> None:
    ours, theirs = write_secret(tmp_path / "ours"), write_secret(tmp_path / "theirs")
    with (
        replica(
            careful, tmp_path / "a" / "token", tmp_path / "a-run", TOOLKILN_STATE_SECRET_FILE=str(ours)
        ) as a,
        replica(
            careful, tmp_path / "b" / "token", tmp_path / "b-run", TOOLKILN_STATE_SECRET_FILE=str(theirs)
        ) as b,
        replica(
            careful, tmp_path / "a" / "token", tmp_path / "c-run", TOOLKILN_STATE_SECRET_FILE=str(ours)
        ) as c,
    ):
        token_a, token_b = ((tmp_path / n / "token").read_text().strip() for n in ("a", "b"))
        state = _asked(a.port, token_a)
        # Another replica of the same deployment (the same secret) opens it and runs the tool.
        done = _call(c.port, token_a, arguments={}, requestState=state, inputResponses=YES)
        assert done["content"][0]["text"] == f"done on {c.port}"
        # Another deployment (another secret) refuses it.
        with pytest.raises(RpcError) as foreign:
            _call(b.port, token_b, arguments={}, requestState=state, inputResponses=YES)
        # An altered one is refused where it was made: one character of the ciphertext changed.
        body = state[-10]
        altered = state[:-10] + ("A" if body != "A" else "B") + state[-9:]
        with pytest.raises(RpcError) as tampered:
            _call(a.port, token_a, arguments={}, requestState=altered, inputResponses=YES)
        # Bound to its arguments: the same state with others is refused.
        with pytest.raises(RpcError) as rebound:
            _call(c.port, token_a, arguments={"confirm": True}, requestState=state, inputResponses=YES)

    for refused in (foreign, tampered, rebound):
        assert refused.value.code == -32602
        assert str(refused.value).startswith("Invalid or expired requestState: ")
        assert "another state.secret_file" in str(refused.value)
    logs = {name: (tmp_path / name / "stderr").read_text() for name in ("a-run", "b-run", "c-run")}
    assert "requestState rejected on tools/call: unknown key" in logs["b-run"]
    assert "requestState rejected on tools/call: seal" in logs["a-run"]
    # Nothing ran where the state was refused.
    audited = [json.loads(line) for line in (tmp_path / "b-run" / "audit.jsonl").read_text().splitlines()]
    assert not [record for record in audited if record.get("success")]


def _serve(config_dir: Path, tmp_path: Path, secret_file: Path, *, token: str | None = None) -> str:
    """`toolkiln serve --http` with this secret file: what it printed when it refused to start."""
    token_file = tmp_path / "state" / "token"
    token_file.parent.mkdir(exist_ok=True)
    if token is not None:
        token_file.write_text(token + "\n")
        token_file.chmod(0o600)
    command = [
        sys.executable, "-m", "toolkiln", "serve", "--http", "--stateless", "--port", "0",
        "--config-dir", str(config_dir), "--token-file", str(token_file), "--no-audit",
    ]  # fmt: skip
    process = subprocess.run(
        command,
        env={**child_env(), "TOOLKILN_STATE_SECRET_FILE": str(secret_file)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert process.returncode == 1, process
    return process.stderr


def test_a_secret_others_can_read_is_refused(careful: Path, tmp_path: Path) -> None:
    secret = write_secret(tmp_path / "secret")
    secret.chmod(0o640)
    error = _serve(careful, tmp_path, secret)
    assert f"{secret} (state.secret_file): other users can read this secret (mode 0640)" in error
    assert f"run: chmod 600 {secret}" in error


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "cannot read it: No such file or directory; make one with: (umask 077;"),
        ("short\n", ":1 (state.secret_file): a secret of 5 bytes; it needs at least 32 bytes"),
        ("\n", "the file is empty; make one with"),
    ],
    ids=["missing", "short", "empty"],
)
def test_a_secret_file_that_cannot_serve_is_refused(
    careful: Path, tmp_path: Path, content: str | None, expected: str
) -> None:
    secret = tmp_path / "secret"
    if content is not None:
        secret.write_text(content)
        secret.chmod(0o600)
    assert expected in _serve(careful, tmp_path, secret)


def test_the_bearer_token_is_refused_as_the_secret(careful: Path, tmp_path: Path) -> None:
    token = "t" * 43
    secret = write_secret(tmp_path / "secret", token)
    error = _serve(careful, tmp_path, secret, token=token)
    assert f"{secret} (TOOLKILN_STATE_SECRET_FILE or state.secret_file) holds the bearer token" in error


def test_a_relative_secret_file_in_server_json_is_refused(careful: Path, run_cli: Any) -> None:
    (careful / "server.json").write_text(json.dumps({"state": {"secret_file": "secret"}}))
    result = run_cli("build")
    assert result.exit_code == 1
    assert "state.secret_file" in result.output and "give the secret file's absolute path" in result.output


def test_each_purpose_has_its_own_key_and_a_replaced_secret_still_opens() -> None:
    old, new = b"o" * 32, b"n" * 32
    assert derive_key(old, REQUEST_STATE) != derive_key(old, b"toolkiln/v1/another-purpose")
    assert derive_key(old, REQUEST_STATE) != derive_key(new, REQUEST_STATE)
    before = request_state_security(StateSecret(Path("/s"), (old,))).codec.seal(b"state")
    # Rotation: the new secret first (it seals), the old one after it (it still opens).
    rotating = request_state_security(StateSecret(Path("/s"), (new, old))).codec
    assert rotating.unseal(before) == b"state"
    assert (
        request_state_security(StateSecret(Path("/s"), (new,))).codec.unseal(rotating.seal(b"later"))
        == b"later"
    )
