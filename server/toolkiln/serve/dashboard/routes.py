"""The dashboard's routes: the page at `/`, login and logout, calls, the switches (switching.py), the
audit and tasks panels (tasks_panel.py), and two static files.

The `Guard` checks Host and Origin first, as on every route, but leaves the token to
these routes (`is_dashboard_path`, mount.py): a browser proves itself with the session cookie
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
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from toolkiln import __version__
from toolkiln.serve.catalog.watch import Rebuild
from toolkiln.serve.dashboard.audit_panel import audit_values
from toolkiln.serve.dashboard.catalog import ToolRow, tool_rows
from toolkiln.serve.dashboard.fallback_switch import fallback_patterns
from toolkiln.serve.dashboard.gate import Gate, page
from toolkiln.serve.dashboard.live import CallStream
from toolkiln.serve.dashboard.questions import QuestionRefused, Questions
from toolkiln.serve.dashboard.sessions import CSRF_FIELD, Session, Sessions
from toolkiln.serve.dashboard.switching import Switches
from toolkiln.serve.dashboard.tasks_panel import detail_values, find_by_handle, panel_version, task_rows
from toolkiln.serve.dashboard.throttle import LoginThrottle
from toolkiln.serve.service import ToolService

if TYPE_CHECKING:
    from toolkiln.serve.replicas.catalog_sync import CatalogNews

logger = logging.getLogger(__name__)

HERE = Path(__file__).parent
STATIC = {"dashboard.js": "text/javascript", "dashboard.css": "text/css"}
LOGIN_PATH = "/dashboard/login"
CANCELLED_HERE = "Cancelled on the dashboard."


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

    def __post_init__(self) -> None:
        self.gate = Gate(self.sessions, self.service.audit)

    def routes(self) -> list[BaseRoute]:
        switches = Switches(self.gate, self.service, self.config_dir, self.rebuild, self.news, self._rows)
        return [
            Route("/", self.index, methods=["GET"]),
            Route(LOGIN_PATH, self.login_page, methods=["GET"]),
            Route(LOGIN_PATH, self.login, methods=["POST"]),
            Route("/dashboard/logout", self.logout, methods=["POST"]),
            Route("/dashboard/static/{name}", self.static, methods=["GET"]),
            Route("/dashboard/audit", self.audit_panel, methods=["GET"]),
            Route("/dashboard/tools/{key}/enabled", switches.tool, methods=["POST"]),
            Route("/dashboard/fallback", switches.fallback, methods=["POST"]),
            Route("/dashboard/call", self.call, methods=["POST"]),
            Route("/dashboard/questions/{id}", self.answer, methods=["POST"]),
            Route("/dashboard/tasks", self.tasks_panel, methods=["GET"]),
            Route("/dashboard/tasks/{handle}", self.task_detail, methods=["GET"]),
            Route("/dashboard/tasks/{handle}/cancel", self.cancel_task, methods=["POST"]),
        ]

    # --- pages ---------------------------------------------------------------------

    async def index(self, request: Request) -> Response:
        session = self.gate.session(request)
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
        return page("index.html", values)

    async def login_page(self, request: Request, *, error: str | None = None, status: int = 200) -> Response:
        if self.sessions.open or (error is None and self.gate.session(request) is not None):
            return RedirectResponse("/", status_code=303)
        cookie, csrf = self.sessions.login_challenge()
        response = page("login.html", {"version": __version__, "error": error, "csrf": csrf})
        response.status_code = status
        self.sessions.set_login_cookie(response, cookie)
        return response

    async def login(self, request: Request) -> Response:
        if self.sessions.open:
            return RedirectResponse("/", status_code=303)
        client = request.client.host if request.client else "?"
        if (wait := self.throttle.retry_after(client)) is not None:
            self.gate.deny(request, 429, "too many failed dashboard logins")
            message = f"Too many wrong tokens. Try again in {wait} s."
            response = await self.login_page(request, error=message, status=429)
            response.headers["retry-after"] = str(wait)
            return response
        form = await request.form()
        token, csrf = form.get("token"), form.get(CSRF_FIELD)
        if not self.sessions.login_challenge_met(request.cookies, csrf if isinstance(csrf, str) else None):
            self.gate.deny(request, 403, "the login form was stale or not ours: load it again")
            return await self.login_page(
                request, error="The form had expired. Paste the token again.", status=403
            )
        if not isinstance(token, str) or not self.sessions.token_matches(token):
            self.throttle.failed(client)
            self.gate.deny(request, 401, "wrong token on the dashboard's login")
            return await self.login_page(request, error="That is not this server's token.", status=401)
        self.throttle.succeeded(client)
        response = RedirectResponse("/", status_code=303)
        self.sessions.start(response)
        logger.info("dashboard login from %s", client)
        return response

    async def logout(self, request: Request) -> Response:
        if (refusal := await self.gate.refusal(request)) is not None:
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
        if self.gate.session(request) is None:
            return self.gate.unauthorized(request)
        return page("_audit.html", await anyio.to_thread.run_sync(audit_values, self.service.audit))

    async def tasks_panel(self, request: Request) -> Response:
        if (session := self.gate.session(request)) is None:
            return self.gate.unauthorized(request)
        return page("_tasks.html", await self._tasks_values(session))

    async def task_detail(self, request: Request) -> Response:
        """One task's logs, and its result or error: only when the page asks for it."""
        if (session := self.gate.session(request)) is None:
            return self.gate.unauthorized(request)
        handle = functools.partial(self.sessions.task_handle, session)
        record = find_by_handle(await self.service.tasks.list_all(), handle, request.path_params["handle"])
        if record is None:
            return JSONResponse({"error": "no such task (it ended and expired?)"}, status_code=404)
        return page("_task.html", detail_values(record, handle))

    # --- what changes something -----------------------------------------------------

    async def cancel_task(self, request: Request) -> Response:
        """Cancel a task through the task service: its script's process group is stopped
        (at once when this server runs it; else by its server, which sees the cancel)."""
        if (refusal := await self.gate.refusal(request)) is not None:
            return refusal
        session = self.gate.session(request)
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

    async def call(self, request: Request) -> Response | CallStream:
        if (refusal := await self.gate.refusal(request)) is not None:
            return refusal
        try:
            body = await request.json()
            name, arguments = body["tool"], body.get("arguments", {})
            if not isinstance(name, str) or not isinstance(arguments, dict):
                raise TypeError
        except (ValueError, KeyError, TypeError, AttributeError):
            return JSONResponse({"error": 'send {"tool": NAME, "arguments": {...}}'}, status_code=400)
        session = self.gate.session(request)
        assert session is not None  # checked by _refusal
        return CallStream(self.service, name, arguments, self.questions, session.owner)

    async def answer(self, request: Request) -> Response:
        """The page's answer to a running call's question (questions.py)."""
        if (refusal := await self.gate.refusal(request)) is not None:
            return refusal
        session = self.gate.session(request)
        assert session is not None  # checked by _refusal
        try:
            body = await request.json()
        except ValueError:
            body = None
        try:
            self.questions.answer(request.path_params["id"], session.owner, body)
        except QuestionRefused as refused:
            if refused.status == 403:
                self.gate.deny(request, 403, "an answer to another dashboard session's question")
            return JSONResponse({"error": str(refused)}, status_code=refused.status)
        return JSONResponse({"answered": True})

    # --- helpers --------------------------------------------------------------------

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
