"""Who may use a dashboard route, and the page it gets back.

A browser proves itself with the session cookie (sessions.py), a script with the bearer
header; a request that changes something also needs the session's CSRF token. Every
refusal is audited. Pages are rendered with headers that let them run only their own
script and style, and never be framed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from toolkiln.audit import AuditLog
from toolkiln.render import render_page
from toolkiln.serve.dashboard.sessions import CSRF_FIELD, CSRF_HEADER, Session, Sessions
from toolkiln.serve.http.guard import record_denial

TEMPLATES = Path(__file__).parent / "templates"
# The page runs only its own script and style, and cannot be framed.
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; media-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",  # no-referrer would make form posts send `Origin: null`
    "cache-control": "no-store",
}


@dataclass
class Gate:
    sessions: Sessions
    audit: AuditLog | None

    def session(self, request: Request) -> Session | None:
        return self.sessions.session(request.cookies, request.headers.get("authorization"))

    async def refusal(self, request: Request) -> Response | None:
        """Why a request that changes something is refused (no session, no CSRF token), or None."""
        session = self.session(request)
        if session is None:
            return self.unauthorized(request)
        presented = request.headers.get(CSRF_HEADER)
        if presented is None and "form" in request.headers.get("content-type", ""):
            field = (await request.form()).get(CSRF_FIELD)
            presented = field if isinstance(field, str) else None
        if not session.allows(presented):
            self.deny(request, 403, "missing or wrong CSRF token")
            return JSONResponse({"error": "missing or wrong CSRF token; reload the page"}, 403)
        return None

    def unauthorized(self, request: Request) -> Response:
        self.deny(request, 401, "no dashboard session and no bearer token")
        return JSONResponse({"error": "log in first (or send Authorization: Bearer <token>)"}, 401)

    def deny(self, request: Request, status: int, reason: str) -> None:
        client = request.client.host if request.client else None
        record_denial(self.audit, request.method, request.url.path, client, status, reason)


async def flag(request: Request, key: str) -> bool | None:
    """The boolean `key` of the request's JSON object; None when there is none."""
    try:
        body = await request.json()
        value = body[key]
    except (ValueError, KeyError, TypeError):
        return None
    return value if isinstance(value, bool) else None


def page(name: str, values: dict[str, Any]) -> HTMLResponse:
    return HTMLResponse(render_page(TEMPLATES, name, values), headers=SECURITY_HEADERS)
