"""Dashboard sessions: signed cookies that expire, CSRF tokens bound to a session, the
login form's own token, the bearer header, and the open session of --no-auth."""

from __future__ import annotations

import pytest
from starlette.responses import Response

from toolkiln import signing as module
from toolkiln.serve.dashboard.sessions import LOGIN_SECONDS, SESSION_SECONDS, Sessions

TOKEN = "s3cret-token"


def cookies_of(response: Response) -> dict[str, str]:
    """name -> the whole Set-Cookie header."""
    headers = [value.decode() for key, value in response.raw_headers if key == b"set-cookie"]
    return {header.split("=", 1)[0]: header for header in headers}


def logged_in(sessions: Sessions) -> dict[str, str]:
    response = Response()
    sessions.start(response)
    header = cookies_of(response)[sessions.cookie]
    return {sessions.cookie: header.split("=", 1)[1].split(";", 1)[0]}


def test_a_session_cookie_is_signed_and_strict() -> None:
    sessions = Sessions(TOKEN, port=8765, secure=False)
    response = Response()
    sessions.start(response)
    header = cookies_of(response)["toolkiln_session_8765"]
    assert "HttpOnly" in header and "SameSite=strict" in header and "Path=/" in header
    assert f"Max-Age={SESSION_SECONDS}" in header and "Secure" not in header
    assert TOKEN not in header
    cookies = logged_in(sessions)
    session = sessions.session(cookies)
    assert session is not None and session.csrf
    assert session.allows(session.csrf) and not session.allows(None) and not session.allows("x")
    other = sessions.session(logged_in(sessions))
    assert other is not None and other.csrf != session.csrf  # one token per session


def test_under_tls_the_cookies_are_secure() -> None:
    sessions = Sessions(TOKEN, port=443, secure=True)
    response = Response()
    sessions.start(response)
    sessions.set_login_cookie(response, "x")
    assert all("Secure" in header for header in cookies_of(response).values())


def test_another_token_or_a_changed_cookie_is_no_session() -> None:
    sessions = Sessions(TOKEN, port=1, secure=False)
    cookies = logged_in(sessions)
    assert Sessions("another-token", port=1, secure=False).session(cookies) is None
    value = cookies[sessions.cookie]
    for forged in (value + "0", "1." + value, value.replace(".", ".x", 1), "", "...", "a.b.c"):
        assert sessions.session({sessions.cookie: forged}) is None, forged
    assert sessions.session({"toolkiln_session_2": value}) is None  # another port's name


def test_sessions_expire(monkeypatch: pytest.MonkeyPatch) -> None:
    sessions = Sessions(TOKEN, port=1, secure=False)
    cookies = logged_in(sessions)
    now = module.time.time()
    monkeypatch.setattr(module.time, "time", lambda: now + SESSION_SECONDS - 5)
    assert sessions.session(cookies) is not None
    monkeypatch.setattr(module.time, "time", lambda: now + SESSION_SECONDS + 5)
    assert sessions.session(cookies) is None


def test_the_login_form_token_is_bound_to_its_cookie(monkeypatch: pytest.MonkeyPatch) -> None:
    sessions = Sessions(TOKEN, port=1, secure=False)
    cookie, csrf = sessions.login_challenge()
    _, other_csrf = sessions.login_challenge()
    jar = {sessions.login_cookie: cookie}
    assert sessions.login_challenge_met(jar, csrf)
    assert not sessions.login_challenge_met(jar, other_csrf)
    assert not sessions.login_challenge_met({}, csrf)
    assert not sessions.login_challenge_met(jar, None)
    now = module.time.time()
    monkeypatch.setattr(module.time, "time", lambda: now + LOGIN_SECONDS + 5)
    assert not sessions.login_challenge_met(jar, csrf)


def test_the_token_and_the_bearer_header() -> None:
    sessions = Sessions(TOKEN, port=1, secure=False)
    assert sessions.token_matches(f"  {TOKEN}\n") and not sessions.token_matches("nope")
    bearer = sessions.session({}, f"Bearer {TOKEN}")
    assert bearer is not None and bearer.csrf is None and bearer.allows(None)
    assert sessions.session({}, "Bearer wrong") is None
    assert sessions.session({}, f"Basic {TOKEN}") is None


def test_without_a_token_there_is_one_open_session_that_still_needs_csrf() -> None:
    sessions = Sessions(None, port=1, secure=False)
    assert sessions.open
    session = sessions.session({})
    assert session is not None and session.csrf
    assert not session.allows(None)
    assert not sessions.token_matches("")
    assert sessions.session({}, "Bearer ") is not None and sessions.session({}, "Bearer x").csrf  # type: ignore[union-attr]
    # The CSRF key is made at start: another server's page cannot know it.
    assert Sessions(None, port=1, secure=False).session({}).csrf != session.csrf  # type: ignore[union-attr]


def test_a_login_challenge_is_no_session_and_a_session_no_challenge(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 30, finding 1: the login form's cookie, sent under the session cookie's name,
    was a session of 12 hours. Each value now checks as its own purpose only."""
    sessions = Sessions(TOKEN, port=1, secure=False)
    cookie, login_csrf = sessions.login_challenge()
    assert sessions.session({sessions.cookie: cookie}) is None
    assert sessions.session({sessions.cookie: cookie, sessions.login_cookie: cookie}) is None
    session_cookie = logged_in(sessions)[sessions.cookie]
    session = sessions.session({sessions.cookie: session_cookie})
    assert session is not None and session.csrf
    # A session cookie is no login challenge, and the two kinds of CSRF token do not mix.
    assert not sessions.login_challenge_met({sessions.login_cookie: session_cookie}, session.csrf)
    assert not session.allows(login_csrf)
    # Not at any age: a login challenge is no session even in its first second, and
    # is nothing at all past its own 10 minutes.
    now = module.time.time()
    for later in (0, LOGIN_SECONDS - 5, LOGIN_SECONDS + 5, SESSION_SECONDS - 5):
        monkeypatch.setattr(module.time, "time", lambda later=later: now + later)
        assert sessions.session({sessions.cookie: cookie}) is None, later
    monkeypatch.setattr(module.time, "time", lambda: now + LOGIN_SECONDS + 5)
    assert not sessions.login_challenge_met({sessions.login_cookie: cookie}, login_csrf)


def test_a_task_handle_belongs_to_one_session_and_one_task() -> None:
    sessions = Sessions(TOKEN, port=1, secure=False)
    first, second = (sessions.session(logged_in(sessions)) for _ in range(2))
    assert first is not None and second is not None
    assert sessions.task_handle(first, "t1") != sessions.task_handle(second, "t1")
    assert sessions.task_handle(first, "t1") != sessions.task_handle(first, "t2")
    assert sessions.task_handle(first, "t1") not in (first.csrf, second.csrf)
