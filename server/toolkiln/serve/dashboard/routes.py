"""The dashboard's routes: the page at `/`, login and logout, the switches, calls, the
audit and tasks panels (tasks_panel.py), and two static files.

The `Guard` checks Host and Origin first, as on every route, but leaves the token to
these routes (`is_dashboard_path`): a browser proves itself with the session cookie
(sessions.py), a script with the bearer header. A page asked for without either goes
to the login page; anything else gets 401. `/mcp` and `/rpc` never look at the cookie.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from toolkiln import __version__
from toolkiln.errors import ConfigError
from toolkiln.render import render_page
from toolkiln.serve.dashboard.audit_panel import audit_values
from toolkiln.serve.dashboard.catalog import ToolRow, tool_rows
from toolkiln.serve.dashboard.fallback_switch import fallback_patterns, switch_fallback
from toolkiln.serve.dashboard.live import CallStream
from toolkiln.serve.dashboard.questions import QuestionRefused, Questions
from toolkiln.serve.dashboard.sessions import CSRF_FIELD, CSRF_HEADER, Session, Sessions
from toolkiln.serve.dashboard.tasks_panel import detail_values, find_by_handle, panel_version, task_rows
from toolkiln.serve.dashboard.throttle import LoginThrottle
from toolkiln.serve.guard import record_denial
from toolkiln.serve.service import ToolService
from toolkiln.serve.watch import Rebuild, reload
from toolkiln.switches import set_tool_enabled

if TYPE_CHECKING:
    from toolkiln.serve.catalog_news import CatalogNews

logger = logging.getLogger(__name__)

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
STATIC = {"dashboard.js": "text/javascript", "dashboard.css": "text/css"}
LOGIN_PATH = "/dashboard/login"
CANCELLED_HERE = "Cancelled on the dashboard."
# The page runs only its own script and style, and cannot be framed.
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; media-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",  # no-referrer would make form posts send `Origin: null`
    "cache-control": "no-store",
}


def is_dashboard_path(path: str) -> bool:
    """The paths whose callers the dashboard admits itself (cookie or bearer header)."""
    return path == "/" or path.startswith("/dashboard/")


@dataclass
class Dashboard:
    service: ToolService
    sessions: Sessions
    config_dir: Path
    rebuild: Rebuild | None  # None: the switches are read-only
    health: Callable[[], dict[str, Any]]
    throttle: LoginThrottle = field(default_factory=LoginThrottle)
    questions: Questions = field(default_factory=Questions)
    news: CatalogNews | None = None  # with `state.url`: switches reach the other replicas

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/", self.index, methods=["GET"]),
            Route(LOGIN_PATH, self.login_page, methods=["GET"]),
            Route(LOGIN_PATH, self.login, methods=["POST"]),
            Route("/dashboard/logout", self.logout, methods=["POST"]),
            Route("/dashboard/static/{name}", self.static, methods=["GET"]),
            Route("/dashboard/audit", self.audit_panel, methods=["GET"]),
            Route("/dashboard/tools/{key}/enabled", self.switch, methods=["POST"]),
            Route("/dashboard/fallback", self.switch_fallback, methods=["POST"]),
            Route("/dashboard/call", self.call, methods=["POST"]),
            Route("/dashboard/questions/{id}", self.answer, methods=["POST"]),
            Route("/dashboard/tasks", self.tasks_panel, methods=["GET"]),
            Route("/dashboard/tasks/{handle}", self.task_detail, methods=["GET"]),
            Route("/dashboard/tasks/{handle}/cancel", self.cancel_task, methods=["POST"]),
        ]

    # --- pages ---------------------------------------------------------------------

    async def index(self, request: Request) -> Response:
        session = self._session(request)
        if session is None:
            return RedirectResponse(LOGIN_PATH, status_code=303)
        rows = await self._rows()
        values = {
            "version": __version__,
            "csrf": session.csrf or "",
            "open": self.sessions.open,
            "can_switch": self.rebuild is not None,
            "rows": rows,
            "served": sum(row.served for row in rows),
            "health": self.health(),
            "tools_dir": str(self.service.registry.tools_dir),  # the folder served (serve DIR's DIR)
            "config_dir": str(self.config_dir),
            "fallback": fallback_patterns(self.config_dir),
            **await anyio.to_thread.run_sync(audit_values, self.service.audit),
            **await self._tasks_values(session),
        }
        return _page("index.html", values)

    async def login_page(self, request: Request, *, error: str | None = None, status: int = 200) -> Response:
        if self.sessions.open or (error is None and self._session(request) is not None):
            return RedirectResponse("/", status_code=303)
        cookie, csrf = self.sessions.login_challenge()
        response = _page("login.html", {"version": __version__, "error": error, "csrf": csrf})
        response.status_code = status
        self.sessions.set_login_cookie(response, cookie)
        return response

    async def login(self, request: Request) -> Response:
        if self.sessions.open:
            return RedirectResponse("/", status_code=303)
        client = request.client.host if request.client else "?"
        if (wait := self.throttle.retry_after(client)) is not None:
            self._deny(request, 429, "too many failed dashboard logins")
            message = f"Too many wrong tokens. Try again in {wait} s."
            response = await self.login_page(request, error=message, status=429)
            response.headers["retry-after"] = str(wait)
            return response
        form = await request.form()
        token, csrf = form.get("token"), form.get(CSRF_FIELD)
        if not self.sessions.login_challenge_met(request.cookies, csrf if isinstance(csrf, str) else None):
            self._deny(request, 403, "the login form was stale or not ours: load it again")
            return await self.login_page(
                request, error="The form had expired. Paste the token again.", status=403
            )
        if not isinstance(token, str) or not self.sessions.token_matches(token):
            self.throttle.failed(client)
            self._deny(request, 401, "wrong token on the dashboard's login")
            return await self.login_page(request, error="That is not this server's token.", status=401)
        self.throttle.succeeded(client)
        response = RedirectResponse("/", status_code=303)
        self.sessions.start(response)
        logger.info("dashboard login from %s", client)
        return response

    async def logout(self, request: Request) -> Response:
        if (refusal := await self._refusal(request)) is not None:
            return refusal
        response = RedirectResponse(LOGIN_PATH if not self.sessions.open else "/", status_code=303)
        await anyio.to_thread.run_sync(self.sessions.end, response, request.cookies)
        return response

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return Response("not found", status_code=404)
        body = await anyio.Path(HERE / "static" / name).read_bytes()
        return Response(body, media_type=STATIC[name], headers={"x-content-type-options": "nosniff"})

    async def audit_panel(self, request: Request) -> Response:
        if self._session(request) is None:
            return self._unauthorized(request)
        return _page("_audit.html", await anyio.to_thread.run_sync(audit_values, self.service.audit))

    async def tasks_panel(self, request: Request) -> Response:
        if (session := self._session(request)) is None:
            return self._unauthorized(request)
        return _page("_tasks.html", await self._tasks_values(session))

    async def task_detail(self, request: Request) -> Response:
        """One task's logs, and its result or error: only when the page asks for it."""
        if (session := self._session(request)) is None:
            return self._unauthorized(request)
        handle = functools.partial(self.sessions.task_handle, session)
        record = find_by_handle(await self.service.tasks.list_all(), handle, request.path_params["handle"])
        if record is None:
            return JSONResponse({"error": "no such task (it ended and expired?)"}, status_code=404)
        return _page("_task.html", detail_values(record, handle))

    # --- what changes something -----------------------------------------------------

    async def cancel_task(self, request: Request) -> Response:
        """Cancel a task through the task service: its script's process group is stopped
        (at once when this server runs it; else by its server, which sees the cancel)."""
        if (refusal := await self._refusal(request)) is not None:
            return refusal
        session = self._session(request)
        assert session is not None  # checked by _refusal
        handle = functools.partial(self.sessions.task_handle, session)
        record = find_by_handle(await self.service.tasks.list_all(), handle, request.path_params["handle"])
        if record is None:
            return JSONResponse({"error": "no such task (it ended and expired?)"}, status_code=404)
        if record.terminal:
            return JSONResponse({"error": f"the task has already ended: {record.status}"}, status_code=409)
        await self.service.tasks.cancel(record.task_id, record.principal, message=CANCELLED_HERE)
        logger.info("dashboard: cancelled a task of %s", record.tool)
        return JSONResponse({"cancelled": True})

    async def switch(self, request: Request) -> Response:
        """Write the tool's `enabled`, rebuild, and serve the result (as `--watch` does)."""
        if (refusal := await self._refusal(request)) is not None:
            return refusal
        if self.rebuild is None:
            return JSONResponse({"error": "this server cannot rebuild its tools"}, status_code=409)
        key = request.path_params["key"]
        if (enabled := await _flag(request, "enabled")) is None:
            return JSONResponse({"error": 'send {"enabled": true} or {"enabled": false}'}, status_code=400)
        try:
            await anyio.to_thread.run_sync(set_tool_enabled, self.config_dir, key, enabled)
        except ConfigError as error:
            return JSONResponse({"error": str(error)}, status_code=404)
        except OSError as error:
            return JSONResponse({"error": f"cannot write the config: {error}"}, status_code=500)
        logger.info("dashboard: %s %s; rebuilding", "enabled" if enabled else "disabled", key)
        if await reload(self.service, self.rebuild) is None:
            message = "the rebuild failed (the server log says why); still serving the last good tools"
            return JSONResponse({"error": message}, status_code=500)
        lag = await self.news.announce(key, enabled) if self.news is not None else None
        rows = [row for row in await self._rows() if row.key == key]
        card = render_page(TEMPLATES, "_tool.html", {"row": rows[0], "can_switch": True}) if rows else ""
        answer = {"enabled": enabled, "served": len(self.service.registry.tools), "card": card}
        return JSONResponse({**answer, **({"warning": lag} if lag else {})})

    async def switch_fallback(self, request: Request) -> Response:
        """Serve the folder's unread scripts (or stop): rediscover, rebuild, serve the result."""
        if (refusal := await self._refusal(request)) is not None:
            return refusal
        if self.rebuild is None:
            return JSONResponse({"error": "this server cannot rebuild its tools"}, status_code=409)
        if (on := await _flag(request, "on")) is None:
            return JSONResponse({"error": 'send {"on": true} or {"on": false}'}, status_code=400)
        try:
            await anyio.to_thread.run_sync(switch_fallback, self.service.registry, self.config_dir, on)
        except ConfigError as error:
            return JSONResponse({"error": str(error)}, status_code=409)
        except OSError as error:
            return JSONResponse({"error": f"cannot write the config: {error}"}, status_code=500)
        logger.info("dashboard: fallback %s; rediscovered, rebuilding", "on" if on else "off")
        if await reload(self.service, self.rebuild) is None:
            message = "the rebuild failed (the server log says why); still serving the last good tools"
            return JSONResponse({"error": message}, status_code=500)
        return JSONResponse({"on": on, "served": len(self.service.registry.tools)})

    async def call(self, request: Request) -> Response | CallStream:
        if (refusal := await self._refusal(request)) is not None:
            return refusal
        try:
            body = await request.json()
            name, arguments = body["tool"], body.get("arguments", {})
            if not isinstance(name, str) or not isinstance(arguments, dict):
                raise TypeError
        except (ValueError, KeyError, TypeError, AttributeError):
            return JSONResponse({"error": 'send {"tool": NAME, "arguments": {...}}'}, status_code=400)
        session = self._session(request)
        assert session is not None  # checked by _refusal
        return CallStream(self.service, name, arguments, self.questions, session.owner)

    async def answer(self, request: Request) -> Response:
        """The page's answer to a running call's question (questions.py)."""
        if (refusal := await self._refusal(request)) is not None:
            return refusal
        session = self._session(request)
        assert session is not None  # checked by _refusal
        try:
            body = await request.json()
        except ValueError:
            body = None
        try:
            self.questions.answer(request.path_params["id"], session.owner, body)
        except QuestionRefused as refused:
            if refused.status == 403:
                self._deny(request, 403, "an answer to another dashboard session's question")
            return JSONResponse({"error": str(refused)}, status_code=refused.status)
        return JSONResponse({"answered": True})

    # --- helpers --------------------------------------------------------------------

    def _session(self, request: Request) -> Session | None:
        return self.sessions.session(request.cookies, request.headers.get("authorization"))

    async def _refusal(self, request: Request) -> Response | None:
        """Why a request that changes something is refused (no session, no CSRF token), or None."""
        session = self._session(request)
        if session is None:
            return self._unauthorized(request)
        presented = request.headers.get(CSRF_HEADER)
        if presented is None and "form" in request.headers.get("content-type", ""):
            field = (await request.form()).get(CSRF_FIELD)
            presented = field if isinstance(field, str) else None
        if not session.allows(presented):
            self._deny(request, 403, "missing or wrong CSRF token")
            return JSONResponse({"error": "missing or wrong CSRF token; reload the page"}, 403)
        return None

    def _unauthorized(self, request: Request) -> Response:
        self._deny(request, 401, "no dashboard session and no bearer token")
        return JSONResponse({"error": "log in first (or send Authorization: Bearer <token>)"}, 401)

    def _deny(self, request: Request, status: int, reason: str) -> None:
        client = request.client.host if request.client else None
        record_denial(self.service.audit, request.method, request.url.path, client, status, reason)

    async def _rows(self) -> list[ToolRow]:
        schemas = {tool["name"]: tool["inputSchema"] for tool in self.service.list_tools()["tools"]}
        registry = self.service.registry
        return await anyio.to_thread.run_sync(tool_rows, registry, schemas, self.config_dir)

    async def _tasks_values(self, session: Session) -> dict[str, Any]:
        rows = task_rows(
            await self.service.tasks.list_all(), functools.partial(self.sessions.task_handle, session)
        )
        # its own key: the page's `version` is toolkiln's, shown in the header
        return {"tasks": rows, "tasks_version": panel_version(rows)}


async def _flag(request: Request, key: str) -> bool | None:
    """The boolean `key` of the request's JSON object; None when there is none."""
    try:
        body = await request.json()
        value = body[key]
    except (ValueError, KeyError, TypeError):
        return None
    return value if isinstance(value, bool) else None


def _page(name: str, values: dict[str, Any]) -> HTMLResponse:
    return HTMLResponse(render_page(TEMPLATES, name, values), headers=SECURITY_HEADERS)
