"""Issue 16, hole 16 (the dashboard's part): failed logins are limited per client and
overall (429 with Retry-After), and logging out revokes the session cookie, copies
included, on every replica that shares the token file. Against `toolkiln serve --http`
as a real process, with a browser-like HTTP client."""

# ruff: noqa: F811  (the dashboard's fixtures, imported by name, are parameters here)

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.serve.dashboard.conftest import Browser, browser, project, server  # noqa: F401  (fixtures)
from tests.serve.http_server import RunningServer, http_server
from toolkiln.serve.dashboard.throttle import CLIENT_BURST, OVERALL_BURST, LoginThrottle


@pytest.fixture
def proxied(project: Path, state: Path) -> Iterator[RunningServer]:
    """A server that believes X-Forwarded-For from loopback: one test process, many clients."""
    with http_server(project, state, "--forwarded-allow-ips", "127.0.0.1") as running:
        yield running


def wrong_login(browser: Browser, address: str | None = None) -> httpx2.Response:
    csrf = browser.login_form()
    headers = {"X-Forwarded-For": address} if address else {}
    return browser.http.post(
        "/dashboard/login", data={"token": "not-it", "csrf_token": csrf}, headers=headers
    )


def test_failed_logins_are_limited_per_client(proxied: RunningServer) -> None:
    with Browser(proxied) as browser:
        for _ in range(CLIENT_BURST):
            assert wrong_login(browser, "198.51.100.7").status_code == 401
        limited = wrong_login(browser, "198.51.100.7")
        assert limited.status_code == 429
        assert int(limited.headers["retry-after"]) >= 1
        assert "Try again in" in limited.text
        # While limited, even the right token is not compared.
        csrf = browser.login_form()
        right = {"token": proxied.token, "csrf_token": csrf}
        assert (
            browser.http.post(
                "/dashboard/login", data=right, headers={"X-Forwarded-For": "198.51.100.7"}
            ).status_code
            == 429
        )
        # Another client is not held back by this one.
        assert browser.login().status_code == 303
    denied = proxied.audit_records()
    assert [entry["status"] for entry in denied if entry.get("status") == 429] == [429, 429]


def test_failed_logins_are_limited_overall(proxied: RunningServer) -> None:
    # Five failures per address, far below its own limit: only the overall one can stop them.
    # The bucket refills once a second, so it takes a few more than OVERALL_BURST.
    statuses = []
    with Browser(proxied) as browser:
        for attempt in range(10 * OVERALL_BURST):
            statuses.append(
                wrong_login(
                    browser, f"10.{attempt // 5 // 250}.{attempt // 5 % 250}.{attempt % 5 + 1}"
                ).status_code
            )
            if statuses[-1] == 429:
                break
    assert statuses[-1] == 429 and set(statuses[:-1]) == {401}
    assert len(statuses) > OVERALL_BURST


def test_the_limiter_forgets_clients_rather_than_grow() -> None:
    throttle = LoginThrottle(max_clients=100)
    for number in range(10_000):
        throttle.failed(f"2001:db8::{number:x}")
    assert len(throttle.clients) == 100
    assert throttle.retry_after("2001:db8::1") is not None  # the overall bucket still holds


def copied(browser: Browser, server: RunningServer, port: int | None = None) -> httpx2.Client:
    """Another client holding a copy of `browser`'s session cookie (under the name that
    the server on `port` reads: the cookie is named after the port)."""
    name = f"toolkiln_session_{int(browser.server.base_url.rsplit(':', 1)[1])}"
    value = browser.http.cookies[name]
    target_port = port or int(server.base_url.rsplit(":", 1)[1])
    return httpx2.Client(base_url=server.base_url, cookies={f"toolkiln_session_{target_port}": value})


def logout(browser: Browser) -> None:
    response = browser.http.post("/dashboard/logout", headers={"X-CSRF-Token": browser.csrf})
    assert response.status_code == 303, response.text


def test_logging_out_revokes_a_copied_cookie(server: RunningServer, browser: Browser) -> None:
    with copied(browser, server) as thief:
        assert thief.get("/").status_code == 200  # the copy works while the session lives
        logout(browser)
        assert thief.get("/").status_code == 303  # to the login page
        assert thief.get("/dashboard/audit").status_code == 401
    assert browser.open_page().status_code == 303
    assert browser.login().status_code == 303  # a new session is not affected
    assert browser.open_page().status_code == 200


def test_a_logout_on_one_replica_ends_the_session_on_another(project: Path, state: Path) -> None:
    with http_server(project, state) as first:
        (state / "server.json").unlink()  # so that the helper waits for the second's
        with http_server(project, state) as second, Browser(first) as browser:
            assert browser.login().status_code == 303 and browser.open_page().status_code == 200
            with copied(browser, second) as other:
                assert other.get("/").status_code == 200  # the replicas share the token
                logout(browser)
                assert other.get("/").status_code == 303


def test_ended_sessions_leave_the_list_when_they_expire(server: RunningServer, browser: Browser) -> None:
    ended = server.state_dir / "revoked-sessions.json"
    ended.write_text(json.dumps({"format": 1, "revoked": {"old": time.time() - 1, "live": time.time() + 99}}))
    logout(browser)
    revoked = json.loads(ended.read_text())["revoked"]
    assert "old" not in revoked and "live" in revoked and len(revoked) == 2
    assert ended.stat().st_mode & 0o777 == 0o600
