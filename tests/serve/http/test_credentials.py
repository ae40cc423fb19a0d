"""serve/http/credentials.py: what a running server does with a token or secret file
rewritten badly. An attacker (or a slip) that leaves a file empty, readable by others,
or short must neither lock every client out nor weaken what is in force: the file is
refused with a warning, and what was read before stays. (The server process itself:
tests/serve/http/test_rotations.py.)"""

from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from toolkiln.http_token import Tokens
from toolkiln.serve.http.credentials import Credentials
from toolkiln.serve.sealed_messages import SealError, Seals
from toolkiln.state_secret import load_state_secret

OLD, NEW = "1" * 64, "2" * 64


def _write(path: Path, text: str, mode: int = 0o600) -> None:
    path.write_text(text)
    path.chmod(mode)


def _service(secret_file: Path) -> Any:
    secret = load_state_secret(secret_file)
    return SimpleNamespace(secret=secret, audit=None)


def test_a_secret_file_readable_by_others_or_too_short_is_refused_and_changes_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    secret_file = tmp_path / "secret"
    _write(secret_file, OLD + "\n")
    service = _service(secret_file)
    seals = Seals(service.secret.secrets, "toolkiln:")  # a replica's (serve/replicas/replication.py)
    credentials = Credentials(service, None, None, seals)
    sealed = seals.seal("switch-news", "payload")
    for text, mode, why in (
        (NEW + "\n", 0o644, "other users can read this secret"),
        ("short\n", 0o600, "it needs at least 32 bytes"),
        ("\n", 0o600, "the file is empty"),
    ):
        _write(secret_file, text, mode)
        with caplog.at_level(logging.WARNING, logger="toolkiln.serve.http.credentials"):
            credentials.reload_changed()
        assert why in caplog.text and "the secrets read before are still used" in caplog.text
        assert service.secret.secrets == (OLD.encode(),)
        assert seals.open("switch-news", sealed).payload == "payload"
        caplog.clear()
    # A good file: the new secret seals, the old one (second line) still opens.
    _write(secret_file, f"{NEW}\n{OLD}\n")
    credentials.reload_changed()
    assert service.secret.secrets == (NEW.encode(), OLD.encode())
    assert seals.open("switch-news", sealed).payload == "payload"
    resealed = seals.seal("switch-news", "again")
    _write(secret_file, f"{OLD}\n")  # back to the old one only: the new seal is refused
    credentials.reload_changed()
    with pytest.raises(SealError, match="its seal does not verify"):
        seals.open("switch-news", resealed)


def test_a_token_file_left_without_a_token_keeps_the_tokens_in_force(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    token_file = tmp_path / "token"
    _write(token_file, "first-token-" + "a" * 20 + "\n")
    secret_file = tmp_path / "secret"
    _write(secret_file, OLD + "\n")
    tokens = Tokens(("first-token-" + "a" * 20,))
    credentials = Credentials(_service(secret_file), token_file, tokens)
    for text in ("", "# only a comment\n", "two words\n"):
        _write(token_file, text)
        with caplog.at_level(logging.WARNING, logger="toolkiln.serve.http.credentials"):
            credentials.reload("a test")
        assert "still accepted" in caplog.text
        assert tokens.all == ("first-token-" + "a" * 20,)
        caplog.clear()
    assert not tokens.accepts("# only a comment") and not tokens.accepts("two words")
