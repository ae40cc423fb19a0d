"""toolkiln/signing.py: a value signed for one purpose is nothing for another, nor for
another audience or secret; it lives its own purpose's lifetime; a purpose is declared
once."""

from __future__ import annotations

import pytest

from toolkiln.signing import CLOCK_SKEW_SECONDS, Binding, Purpose, Signer

SHORT = Purpose("test-short", 600)
LONG = Purpose("test-long", 12 * 3600)
CSRF = Binding("test-csrf")
HANDLE = Binding("test-handle")
SECRET = b"the operator's secret, 32 bytes."
NOW = 1_800_000_000.0


def test_a_value_is_good_for_its_own_purpose_only() -> None:
    signer = Signer(SECRET, "dashboard")
    short = signer.sign(SHORT, "nonce", now=NOW)
    assert signer.verify(SHORT, short, now=NOW) == "nonce"
    assert signer.verify(LONG, short, now=NOW) is None  # a login challenge is no session
    assert signer.verify(SHORT, signer.sign(LONG, "nonce", now=NOW), now=NOW) is None
    # Bound values: the same parts under two bindings give two unrelated values.
    assert signer.bind(CSRF, "nonce") != signer.bind(HANDLE, "nonce")
    assert signer.bound(CSRF, signer.bind(CSRF, "nonce"), "nonce")
    assert not signer.bound(HANDLE, signer.bind(CSRF, "nonce"), "nonce")
    assert not signer.bound(CSRF, None, "nonce")
    # A standalone value's MAC is no bound value of the same text either.
    mac = short.rsplit(".", 1)[1]
    assert not signer.bound(CSRF, mac, str(int(NOW)), "nonce")


def test_another_audience_or_secret_opens_nothing() -> None:
    signer = Signer(SECRET, "dashboard")
    value = signer.sign(SHORT, "nonce", now=NOW)
    assert Signer(SECRET, "relay").verify(SHORT, value, now=NOW) is None
    assert Signer(SECRET + b"!", "dashboard").verify(SHORT, value, now=NOW) is None
    assert Signer(SECRET, "relay").bind(CSRF, "x") != signer.bind(CSRF, "x")
    assert Signer(SECRET, "dashboard").verify(SHORT, value, now=NOW) == "nonce"  # a replica's signer


def test_a_value_lives_its_purposes_lifetime_and_no_longer() -> None:
    signer = Signer(SECRET, "dashboard")
    value = signer.sign(SHORT, "nonce", now=NOW)
    assert signer.verify(SHORT, value, now=NOW + SHORT.lifetime - 1) == "nonce"
    assert signer.verify(SHORT, value, now=NOW + SHORT.lifetime) is None
    assert signer.verify(LONG, value, now=NOW + 60) is None  # not even young, under the longer purpose
    assert signer.verify(SHORT, value, now=NOW - CLOCK_SKEW_SECONDS) == "nonce"
    assert signer.verify(SHORT, value, now=NOW - CLOCK_SKEW_SECONDS - 1) is None  # from the future
    # Made younger by hand: the issued time is signed.
    _, payload, mac = value.split(".")
    assert signer.verify(SHORT, f"{int(NOW) + 500}.{payload}.{mac}", now=NOW + 700) is None


@pytest.mark.parametrize(
    "forged",
    ["", "...", "a.b.c", "1.nonce", "1.nonce.", "01.nonce.x", "1.no.nce.x", "99999999999999.nonce.x"],
)
def test_malformed_values_are_nothing(forged: str) -> None:
    assert Signer(SECRET, "dashboard").verify(SHORT, forged, now=NOW) is None


def test_the_parts_of_a_bound_value_cannot_be_regrouped() -> None:
    signer = Signer(SECRET, "dashboard")
    assert signer.bind(HANDLE, "session.a", "b") != signer.bind(HANDLE, "session", "a.b")
    assert signer.bind(HANDLE, "ab", "") != signer.bind(HANDLE, "a", "b")


def test_a_purpose_is_declared_once_and_a_payload_is_url_safe() -> None:
    with pytest.raises(ValueError, match="declared twice"):
        Purpose("test-short", 10)
    with pytest.raises(ValueError, match="declared twice"):
        Binding("test-long")  # bindings and purposes share one set of names
    with pytest.raises(ValueError, match="lowercase"):
        Binding("Not A Name")
    with pytest.raises(ValueError, match="lifetime"):
        Purpose("test-forever", 0)
    signer = Signer(SECRET, "dashboard")
    for payload in ("", "a.b", "a b", "x" * 257):
        with pytest.raises(ValueError, match="URL-safe"):
            signer.sign(SHORT, payload)


def test_a_retired_secret_still_checks_and_never_signs() -> None:
    old = Signer(SECRET, "relay")
    value, tag = old.sign(SHORT, "nonce", now=NOW), old.bind(CSRF, "x")
    rotating = Signer(b"the new secret, also 32 bytes...", "relay", retired=[SECRET])
    assert rotating.verify(SHORT, value, now=NOW) == "nonce" and rotating.bound(CSRF, tag, "x")
    assert rotating.bind(CSRF, "x") != tag  # it signs with the new one
    assert Signer(SECRET, "relay").verify(SHORT, rotating.sign(SHORT, "n", now=NOW), now=NOW) is None
    assert rotating.verify(LONG, value, now=NOW) is None  # purposes stay apart under every secret
    with pytest.raises(ValueError, match="empty"):
        Signer(SECRET, "relay", retired=[b""])
