"""Issue 30, finding 1 and its family: no value the server issues is taken in another's
place. The login page's cookie sent back as the session cookie opened the dashboard
(sessions.py signed both alike and checked no purpose); here every signed or secret
value a real `toolkiln serve --http` hands out is collected from its responses and
presented in every place where one of them is accepted.

The values: the session cookie, the login form's cookie and CSRF token, the page's CSRF
token, a task's handle on the page, a question's id on a call's stream (all of the
dashboard), the bearer token, a task's id, an `Mcp-Session-Id` and a sealed
`requestState` (of the MCP side), a second session's cookie, CSRF token and handle,
and, with a real Redis (`state.url`), a shared stream's event id.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import httpx2
import pytest

from tests.conftest import MakeTool, tune_tool
from tests.serve.dashboard.conftest import Browser, hidden_csrf
from tests.serve.dashboard.test_questions import ASK, Call
from tests.serve.http.test_answers import SLOW
from tests.serve.http.test_http import ECHO
from tests.serve.http_server import RunningServer, http_server
from tests.serve.redis_server import needs_redis, redis_server
from tests.serve.replicas.test_replicas import CAREFUL
from tests.serve.tasks.test_tasks import LINGER
from tests.serve.tasks_wire import RpcError, http_request, read_pids, wait_for, wait_gone
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

YES = {"confirm": {"action": "accept", "content": {"confirm": True}}}
HANDSHAKE = "2025-11-25"
ACCEPT = "application/json, text/event-stream"


@pytest.fixture(params=["one machine", pytest.param("redis", marks=needs_redis)])
def state_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str | None]:
    """None (one machine), or the URL of a real Redis (`state.url`: shared streams too)."""
    if request.param != "redis":
        yield None
        return
    with redis_server(tmp_path / "redis") as store:
        yield store.url


@pytest.fixture
def server(
    state_url: str | None, make_tool: MakeTool, tools_dir: Path, config_dir: Path, state: Path
) -> Iterator[RunningServer]:
    """A task (`linger`), a confirmation (`careful`), a question (`ask`) and a quick call
    (`echo`) to issue every kind of value."""
    make_tool("linger.py", LINGER)
    make_tool("careful.sh", CAREFUL)
    make_tool("ask.py", ASK)
    make_tool("echo.sh", ECHO)
    make_tool("slow.sh", SLOW)  # answers after the JSON window: a stream, with event ids
    assert not discover_tools(tools_dir, config_dir).errors
    tune_tool(config_dir, "linger", timeout_seconds=600)
    tune_tool(config_dir, "careful", requires_confirmation=True)
    tune_tool(config_dir, "ask", interactive=True, timeout_seconds=300)
    build_catalog(config_dir, tools_dir)
    env = {"TOOLKILN_STATE_URL": state_url} if state_url else {}
    with http_server(config_dir, state, "--tools-dir", str(tools_dir), **env) as running:
        yield running


def port_of(server: RunningServer) -> int:
    return int(server.base_url.rsplit(":", 1)[1])


def cookie_jar(server: RunningServer, **cookies: str) -> httpx2.Client:
    """A client that sends exactly `cookies` (names without the port suffix)."""
    port = port_of(server)
    return httpx2.Client(
        base_url=server.base_url, timeout=60, cookies={f"toolkiln_{n}_{port}": v for n, v in cookies.items()}
    )


def login_challenge(server: RunningServer) -> tuple[str, str]:
    """A fresh login form's (cookie, CSRF token), as a stranger gets them."""
    with httpx2.Client(base_url=server.base_url, timeout=60) as stranger:
        page = stranger.get("/dashboard/login")
        assert page.status_code == 200
        return stranger.cookies[f"toolkiln_login_{port_of(server)}"], hidden_csrf(page.text)


def test_the_login_pages_cookie_is_no_session(server: RunningServer) -> None:
    """The reproduction: the cookie a stranger gets from the login page, sent back under
    the session cookie's name, opens nothing, and Try-it refuses it."""
    cookie, csrf = login_challenge(server)
    with cookie_jar(server, session=cookie) as thief:
        page = thief.get("/")
        assert page.status_code == 303 and page.headers["location"] == "/dashboard/login"
        assert thief.get("/dashboard/audit").status_code == 401
        assert thief.get("/dashboard/tasks").status_code == 401
        call = thief.post(
            "/dashboard/call",
            json={"tool": "careful", "arguments": {}},
            headers={"X-CSRF-Token": csrf},
        )
        assert call.status_code == 401
    with cookie_jar(server, session=cookie, login=cookie) as thief:
        assert thief.get("/").status_code == 303  # under both names at once, the same


def page_handles(browser: Browser) -> list[str]:
    return re.findall(r'data-task="([^"]+)"', browser.http.get("/dashboard/tasks").text)


def open_session(server: RunningServer) -> Browser:
    browser = Browser(server)
    assert browser.login().status_code == 303 and browser.open_page().status_code == 200
    return browser


def mcp_session(server: RunningServer) -> str:
    """A handshake-era session's id, from its `initialize`."""
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": HANDSHAKE,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    answer = httpx2.post(server.mcp_url, json=hello, headers={**server.auth(), "Accept": ACCEPT}, timeout=60)
    assert answer.status_code == 200, answer.text
    session: str = answer.headers["mcp-session-id"]
    return session


def stream_event_id(server: RunningServer) -> str:
    """The first event id of a call's stream (kept in Redis: `<token>.<entry>`)."""
    session = mcp_session(server)
    headers = {
        **server.auth(),
        "Accept": ACCEPT,
        "Mcp-Session-Id": session,
        "MCP-Protocol-Version": HANDSHAKE,
    }
    ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert httpx2.post(server.mcp_url, json=ready, headers=headers, timeout=60).status_code == 202
    params = {"name": "slow", "arguments": {}}
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params}
    answer = httpx2.post(server.mcp_url, json=call, headers=headers, timeout=60)
    ids = [line[3:].strip() for line in answer.text.splitlines() if line.startswith("id:")]
    assert ids and "late" in answer.text, answer.text
    return ids[0]


def slots(
    server: RunningServer, owner: Browser, challenge: tuple[str, str]
) -> dict[str, Callable[[str], bool]]:
    """Every place the server accepts one of its values: whether it takes `value` there
    (everything else the request needs is genuine, so only `value` can be the reason)."""
    login_cookie, login_csrf = challenge
    session_cookie = owner.http.cookies[f"toolkiln_session_{port_of(server)}"]
    mcp = functools.partial(http_request, server.mcp_url)

    def session(value: str) -> bool:
        with cookie_jar(server, session=value) as client:
            return client.get("/").status_code == 200

    def login(cookie: str, csrf: str) -> bool:
        with cookie_jar(server, login=cookie) as client:
            answer = client.post("/dashboard/login", data={"token": server.token, "csrf_token": csrf})
            return answer.status_code == 303

    def csrf(value: str) -> bool:  # {} is no call: 400 once the token is taken, 403 before
        with cookie_jar(server, session=session_cookie) as client:
            return client.post("/dashboard/call", json={}, headers={"X-CSRF-Token": value}).status_code == 400

    def handle(value: str) -> bool:
        with cookie_jar(server, session=session_cookie) as client:
            return client.get(f"/dashboard/tasks/{quote(value, safe='')}").status_code == 200

    def question(value: str) -> bool:  # a bad answer is 400 once the question is found and ours
        with cookie_jar(server, session=session_cookie) as client:
            url = f"/dashboard/questions/{quote(value, safe='')}"
            return (
                client.post(url, json={"action": "no"}, headers={"X-CSRF-Token": owner.csrf}).status_code
                == 400
            )

    def bearer(value: str) -> bool:
        headers = {"Authorization": f"Bearer {value}"}
        dashboard = httpx2.get(f"{server.base_url}/dashboard/audit", headers=headers, timeout=60)
        listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        rpc = httpx2.post(f"{server.base_url}/rpc", json=listing, headers=headers, timeout=60)
        assert (dashboard.status_code == 200) == (rpc.status_code == 200)
        return dashboard.status_code == 200

    def task(value: str) -> bool:
        try:
            mcp(server.token, "tasks/get", {"taskId": value})
        except RpcError:
            return False
        return True

    def mcp_session_id(value: str) -> bool:
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        headers = {
            **server.auth(),
            "Accept": ACCEPT,
            "Mcp-Session-Id": value,
            "MCP-Protocol-Version": HANDSHAKE,
        }
        return httpx2.post(server.mcp_url, json=listing, headers=headers, timeout=60).status_code == 200

    def request_state(value: str) -> bool:
        params = {"name": "careful", "arguments": {}, "requestState": value, "inputResponses": YES}
        try:
            done = mcp(server.token, "tools/call", params, {"elicitation": {}})
        except RpcError:
            return False
        return done.get("resultType", "complete") == "complete"

    def resumption(value: str) -> bool:
        headers = {
            **server.auth(),
            "Accept": ACCEPT,
            "MCP-Protocol-Version": HANDSHAKE,
            "Last-Event-ID": value,
        }
        with httpx2.stream("GET", server.mcp_url, headers=headers, timeout=60) as answer:
            return answer.status_code == 200

    return {
        "last event id": resumption,
        "session cookie": session,
        "login cookie": lambda value: login(value, login_csrf),
        "login csrf": lambda value: login(login_cookie, value),
        "page csrf": csrf,
        "task handle": handle,
        "question id": question,
        "bearer token": bearer,
        "task id": task,
        "mcp session id": mcp_session_id,
        "request state": request_state,
    }


def test_no_issued_value_is_taken_in_anothers_place(
    server: RunningServer, state_url: str | None, tools_dir: Path
) -> None:
    mcp = functools.partial(http_request, server.mcp_url, server.token)
    task_id = mcp("tools/call", {"name": "linger", "arguments": {}})["taskId"]
    pids = read_pids(tools_dir)
    asked = mcp("tools/call", {"name": "careful", "arguments": {}}, {"elicitation": {}})
    assert asked["resultType"] == "input_required", asked
    challenge = login_challenge(server)
    with open_session(server) as owner, open_session(server) as other:
        ask = Call(owner, "ask", {})
        try:
            question = ask.until("question")["id"]
            [handle] = page_handles(owner)
            [other_handle] = page_handles(other)
            port = port_of(server)
            issued = {  # what each value is, and the one place it belongs
                "session cookie": (owner.http.cookies[f"toolkiln_session_{port}"], "session cookie"),
                "login cookie": (challenge[0], "login cookie"),
                "login csrf": (challenge[1], "login csrf"),
                "page csrf": (owner.csrf, "page csrf"),
                "task handle": (handle, "task handle"),
                "question id": (question, "question id"),
                "bearer token": (server.token, "bearer token"),
                "task id": (task_id, "task id"),
                "mcp session id": (mcp_session(server), "mcp session id"),
                "request state": (asked["requestState"], "request state"),
                # Kept only with Redis: elsewhere a stream's ids are a session's own counters.
                **({"event id": (stream_event_id(server), "last event id")} if state_url else {}),
                # Another session's: its cookie is a session, its token and handle are not ours.
                "other's session cookie": (other.http.cookies[f"toolkiln_session_{port}"], "session cookie"),
                "other's page csrf": (other.csrf, None),
                "other's task handle": (other_handle, None),
            }
            assert len({value for value, _ in issued.values()}) == len(issued)
            places = slots(server, owner, challenge)
            taken = {
                (name, place): accepts(value)
                for place, accepts in places.items()
                for name, (value, _) in issued.items()
            }
            expected = {
                (name, place): place == home for name, (_, home) in issued.items() for place in places
            }
            wrong = {pair: accepted for pair, accepted in taken.items() if accepted != expected[pair]}
            assert not wrong, json.dumps({f"{n} as {p}": a for (n, p), a in wrong.items()}, indent=1)
        finally:
            ask.close()
            mcp("tasks/cancel", {"taskId": task_id})
            wait_for(mcp, task_id, "cancelled", "completed", "failed")
            wait_gone(*pids)


def test_nothing_of_a_session_outlives_its_logout(server: RunningServer, tools_dir: Path) -> None:
    """Replay after logout: the cookie, its CSRF token (with a new session) and its task
    handles are all refused."""
    mcp = functools.partial(http_request, server.mcp_url, server.token)
    task_id = mcp("tools/call", {"name": "linger", "arguments": {}})["taskId"]
    pids = read_pids(tools_dir)
    try:
        with open_session(server) as first:
            port = port_of(server)
            cookie, csrf = first.http.cookies[f"toolkiln_session_{port}"], first.csrf
            [handle] = page_handles(first)
            assert first.http.post("/dashboard/logout", headers={"X-CSRF-Token": csrf}).status_code == 303
        with cookie_jar(server, session=cookie) as replay:
            assert replay.get("/").status_code == 303
            assert replay.get(f"/dashboard/tasks/{handle}").status_code == 401
            assert replay.post("/dashboard/call", json={}, headers={"X-CSRF-Token": csrf}).status_code == 401
        with open_session(server) as second:
            refused = second.http.post("/dashboard/call", json={}, headers={"X-CSRF-Token": csrf})
            assert refused.status_code == 403
            assert second.http.get(f"/dashboard/tasks/{handle}").status_code == 404
            cancel = second.http.post(
                f"/dashboard/tasks/{handle}/cancel", headers={"X-CSRF-Token": second.csrf}
            )
            assert cancel.status_code == 404
            assert mcp("tasks/get", {"taskId": task_id})["status"] == "working"
    finally:
        mcp("tasks/cancel", {"taskId": task_id})
        wait_for(mcp, task_id, "cancelled", "completed", "failed")
        wait_gone(*pids)
