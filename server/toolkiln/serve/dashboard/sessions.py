"""Who may use the dashboard: a login with the server's token, a signed session cookie,
and a CSRF token on every request that changes something.

Every value the dashboard hands out is signed by a `Signer` (toolkiln/signing.py) whose
secret is the bearer token (under `--no-auth`, 32 random bytes made at start) and whose
audience is the dashboard, each under its purpose's own key, with the purpose's name in
what is signed, so that none is taken in another's place:

- the session cookie, `<issued>.<nonce>.<mac>` (`SESSION`, 12 h);
- the login form's cookie, the same shape (`LOGIN`, 10 min): a login challenge, never
  a session, whatever name it is sent under;
- the login form's CSRF token, bound to that cookie's nonce (`LOGIN_CSRF`);
- a session's CSRF token, bound to the session's nonce (`SESSION_CSRF`), rendered into
  the page and sent back in the `X-CSRF-Token` header (or a form field);
- a task's handle on a session's page (`TASK_HANDLE`, tasks_panel.py), bound to the
  session and the task.

Checked without server-side state (replicas that share the token accept each other's
sessions), a session lasts `SESSION_SECONDS`, and a new token ends every session. The
cookies are HttpOnly, SameSite=Strict, Secure under TLS, and named after the port, as
browsers send a host's cookies to all its ports. Logging out puts the session's nonce
on a list that replicas share (revoked.py), so that a copy of the cookie ends with it.
A request with `Authorization: Bearer <token>` (a script, not a browser) needs neither
cookie nor CSRF token. Without a token (`--no-auth`) everyone has one open session,
whose CSRF token is still unknown to another site.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from starlette.responses import Response

from toolkiln.http_token import Tokens
from toolkiln.serve.dashboard.revoked import Revocations
from toolkiln.serve.http.guard import token_matches
from toolkiln.signing import Binding, Purpose, Signer

SESSION_SECONDS = 12 * 3600
LOGIN_SECONDS = 600
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"
AUDIENCE = "toolkiln dashboard"
# Each value the dashboard signs, and how long a standalone one is good.
SESSION = Purpose("dashboard-session", SESSION_SECONDS)
LOGIN = Purpose("dashboard-login", LOGIN_SECONDS)
SESSION_CSRF = Binding("dashboard-session-csrf")
LOGIN_CSRF = Binding("dashboard-login-csrf")
TASK_HANDLE = Binding("dashboard-task-handle")
OPEN = "open"  # the one session of --no-auth


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
        self,
        token: str | None,
        *,
        port: int,
        secure: bool,
        revocations: Revocations | None = None,
        tokens: Tokens | None = None,
    ) -> None:
        self._token = token
        # Every token of the token file, read again when it changes (serve/http/credentials.py):
        # each logs in, and a change of the tokens ends every session, as a restart would.
        self._tokens = tokens
        self._signed_for = tokens.all if tokens is not None else ()
        self.revocations = revocations or Revocations(None)
        secret = token.encode() if token is not None else secrets.token_bytes(32)
        self._signer_of_token = Signer(secret, AUDIENCE)
        self.cookie = f"toolkiln_session_{port}"
        self.login_cookie = f"toolkiln_login_{port}"
        self.secure = secure

    @property
    def _signer(self) -> Signer:
        if self._tokens is not None and self._tokens.all != self._signed_for:
            self._signed_for = self._tokens.all
            self._signer_of_token = Signer("\n".join(self._signed_for).encode(), AUDIENCE)
        return self._signer_of_token

    def _accepts(self, presented: str) -> bool:
        if self._token is None:
            return False
        if self._tokens is not None:
            return self._tokens.accepts(presented)
        return token_matches(presented, self._token)

    @property
    def open(self) -> bool:
        """No token (`--no-auth`): no login."""
        return self._token is None

    def token_matches(self, pasted: str) -> bool:
        return self._accepts(pasted)

    def session(self, cookies: Mapping[str, str], authorization: str | None = None) -> Session | None:
        """The session of a request, or None: it must log in."""
        scheme, _, credentials = (authorization or "").partition(" ")
        if scheme.lower() == "bearer" and self._accepts(credentials):
            return Session(
                csrf=None, owner="bearer"
            )  # not a browser: a cross-site page cannot set this header
        nonce = self._signer.verify(SESSION, cookies.get(self.cookie))
        if nonce is not None and self.revocations.is_revoked(nonce):
            nonce = None  # logged out: this cookie (and every copy of it) is dead
        if nonce is None and self.open:
            nonce = OPEN
        if nonce is None:
            return None
        return Session(csrf=self._signer.bind(SESSION_CSRF, nonce), owner=f"session.{nonce}")

    def start(self, response: Response) -> None:
        """Log in: the session cookie on `response`, the login challenge's cookie gone."""
        value = self._signer.sign(SESSION, secrets.token_urlsafe(18))
        self._set(response, self.cookie, value, SESSION_SECONDS)
        self._set(response, self.login_cookie, "", 0)

    def end(self, response: Response, cookies: Mapping[str, str]) -> None:
        """Log out: the cookie gone from this browser, and revoked wherever else it was copied."""
        value = cookies.get(self.cookie, "")
        nonce = self._signer.verify(SESSION, value)
        if nonce is not None:
            self.revocations.revoke(nonce, expires=int(value.partition(".")[0]) + SESSION_SECONDS + 60)
        self._set(response, self.cookie, "", 0)

    def login_challenge(self) -> tuple[str, str]:
        """A new login form's (cookie value, CSRF token): the token is bound to the cookie."""
        nonce = secrets.token_urlsafe(18)
        return self._signer.sign(LOGIN, nonce), self._signer.bind(LOGIN_CSRF, nonce)

    def set_login_cookie(self, response: Response, value: str) -> None:
        self._set(response, self.login_cookie, value, LOGIN_SECONDS)

    def login_challenge_met(self, cookies: Mapping[str, str], presented: str | None) -> bool:
        nonce = self._signer.verify(LOGIN, cookies.get(self.login_cookie))
        return nonce is not None and self._signer.bound(LOGIN_CSRF, presented, nonce)

    def task_handle(self, session: Session, task_id: str) -> str:
        """How `session`'s page names a task (tasks_panel.py): good for that session only."""
        return self._signer.bind(TASK_HANDLE, session.owner, task_id)

    def _set(self, response: Response, name: str, value: str, max_age: int) -> None:
        response.set_cookie(
            name, value, max_age=max_age, path="/", secure=self.secure, httponly=True, samesite="strict"
        )
