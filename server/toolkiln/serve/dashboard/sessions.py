"""Who may use the dashboard: a login with the server's token, a signed session cookie,
and a CSRF token on every request that changes something.

The cookie holds no secret: `<issued>.<nonce>.<signature>`, signed (HMAC-SHA256) with a
key derived from the bearer token. So it is checked without server-side state (replicas
that share a token accept each other's sessions), it lasts `SESSION_SECONDS`, and a new
token ends every session. It is HttpOnly, SameSite=Strict, Secure under TLS, and named
after the port, as browsers send a host's cookies to all its ports. Logging out puts
the session's nonce on a list that replicas share (revoked.py), so that a copy of the
cookie ends with it.

A session's CSRF token is an HMAC of its nonce, rendered into the page and sent back in
the `X-CSRF-Token` header (or a form field); the login form has one of its own, bound to
a short-lived cookie. A request with `Authorization: Bearer <token>` (a script, not a
browser) needs neither. Without a token (`--no-auth`) everyone has one open session,
whose CSRF key is made at start and so still cannot be read by another site.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass

from starlette.responses import Response

from toolkiln.serve.dashboard.revoked import Revocations
from toolkiln.serve.guard import bearer_matches, token_matches

SESSION_SECONDS = 12 * 3600
LOGIN_SECONDS = 600
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"


@dataclass(frozen=True)
class Session:
    """A dashboard user. `csrf` is what a state-changing request must present (None: nothing);
    `owner` tells this session from the others (a call's questions are its own)."""

    csrf: str | None
    owner: str

    def allows(self, presented: str | None) -> bool:
        if self.csrf is None:
            return True
        return presented is not None and hmac.compare_digest(presented.encode(), self.csrf.encode())


class Sessions:
    def __init__(
        self, token: str | None, *, port: int, secure: bool, revocations: Revocations | None = None
    ) -> None:
        self._token = token
        self.revocations = revocations or Revocations(None)
        secret = token.encode() if token is not None else secrets.token_bytes(32)
        self._key = hmac.new(secret, b"toolkiln dashboard sessions", hashlib.sha256).digest()
        self.cookie = f"toolkiln_session_{port}"
        self.login_cookie = f"toolkiln_login_{port}"
        self.secure = secure

    @property
    def open(self) -> bool:
        """No token (`--no-auth`): no login."""
        return self._token is None

    def token_matches(self, pasted: str) -> bool:
        return self._token is not None and token_matches(pasted, self._token)

    def session(self, cookies: Mapping[str, str], authorization: str | None = None) -> Session | None:
        """The session of a request, or None: it must log in."""
        if self._token is not None and bearer_matches(authorization, self._token):
            return Session(
                csrf=None, owner="bearer"
            )  # not a browser: a cross-site page cannot set this header
        nonce = self._verified(cookies.get(self.cookie, ""), SESSION_SECONDS)
        if nonce is not None and self.revocations.is_revoked(nonce):
            nonce = None  # logged out: this cookie (and every copy of it) is dead
        if nonce is None and self.open:
            nonce = "open"
        return None if nonce is None else Session(csrf=self._sign(f"csrf.{nonce}"), owner=f"session.{nonce}")

    def start(self, response: Response) -> None:
        """Log in: the session cookie on `response`, the login challenge's cookie gone."""
        self._set(response, self.cookie, self._signed_nonce(), SESSION_SECONDS)
        self._set(response, self.login_cookie, "", 0)

    def end(self, response: Response, cookies: Mapping[str, str]) -> None:
        """Log out: the cookie gone from this browser, and revoked wherever else it was copied."""
        value = cookies.get(self.cookie, "")
        nonce = self._verified(value, SESSION_SECONDS)
        if nonce is not None:
            self.revocations.revoke(nonce, expires=int(value.partition(".")[0]) + SESSION_SECONDS + 60)
        self._set(response, self.cookie, "", 0)

    def login_challenge(self) -> tuple[str, str]:
        """A new login form's (cookie value, CSRF token): the token is bound to the cookie."""
        value = self._signed_nonce()
        return value, self._sign(f"login.{value.split('.')[1]}")

    def set_login_cookie(self, response: Response, value: str) -> None:
        self._set(response, self.login_cookie, value, LOGIN_SECONDS)

    def login_challenge_met(self, cookies: Mapping[str, str], presented: str | None) -> bool:
        nonce = self._verified(cookies.get(self.login_cookie, ""), LOGIN_SECONDS)
        return nonce is not None and Session(csrf=self._sign(f"login.{nonce}"), owner="login").allows(
            presented
        )

    def _set(self, response: Response, name: str, value: str, max_age: int) -> None:
        response.set_cookie(
            name, value, max_age=max_age, path="/", secure=self.secure, httponly=True, samesite="strict"
        )

    def _signed_nonce(self) -> str:
        payload = f"{int(time.time())}.{secrets.token_urlsafe(18)}"
        return f"{payload}.{self._sign(payload)}"

    def _verified(self, value: str, max_age: int) -> str | None:
        """The nonce of a cookie value this server signed less than `max_age` seconds ago."""
        issued, _, rest = value.partition(".")
        nonce, _, signature = rest.partition(".")
        if not (issued.isdigit() and nonce and signature):
            return None
        if not hmac.compare_digest(signature.encode(), self._sign(f"{issued}.{nonce}").encode()):
            return None
        age = time.time() - int(issued)
        return nonce if -60 <= age < max_age else None  # a minute of clock skew between replicas

    def task_handle(self, session: Session, task_id: str) -> str:
        """How `session`'s page names a task (tasks_panel.py): good for that session only."""
        return self._sign(f"task.{session.owner}.{task_id}")[:32]

    def _sign(self, message: str) -> str:
        return hmac.new(self._key, message.encode(), hashlib.sha256).hexdigest()
