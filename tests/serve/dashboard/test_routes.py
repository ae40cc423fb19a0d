"""The dashboard over real HTTP, against `toolkiln serve --http` as a process: the login
and its cookie, CSRF, the switches (config written, tools swapped in, MCP clients told),
calls streamed live and stopped when the browser goes away, the audit panel, --no-auth,
--no-dashboard, TLS, and that the cookie never opens /mcp or /rpc."""

from __future__ import annotations

import contextlib
import json
import re
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp.types as types
import pytest

from tests.conftest import MakeTool, pids_alive
from tests.serve.dashboard.conftest import Browser, events, meta_csrf
from tests.serve.http_server import RunningServer, http_server, mcp_client
from tests.test_fallback_flag import GETOPT

# --- login ------------------------------------------------------------------------------


def test_without_a_session_the_page_sends_to_the_login_and_the_rest_is_refused(server: RunningServer) -> None:
    page = httpx2.get(f"{server.base_url}/")
    assert page.status_code == 303
    assert page.headers["location"] == "/dashboard/login"
    assert httpx2.get(f"{server.base_url}/dashboard/audit").status_code == 401
    call = httpx2.post(f"{server.base_url}/dashboard/call", json={"tool": "echo", "arguments": {}})
    switch = httpx2.post(f"{server.base_url}/dashboard/tools/echo/enabled", json={"enabled": False})
    assert (call.status_code, switch.status_code) == (401, 401)
    denied = server.audit_records()
    assert {record["path"] for record in denied} == {
        "/dashboard/audit", "/dashboard/call", "/dashboard/tools/echo/enabled"
    }  # fmt: skip


def test_the_login_sets_a_strict_httponly_cookie_named_after_the_port(server: RunningServer) -> None:
    with Browser(server) as browser:
        _check_the_login(server, browser)


def _check_the_login(server: RunningServer, browser: Browser) -> None:
    wrong = browser.login("not-the-token")
    assert wrong.status_code == 401
    assert "That is not this server" in wrong.text
    assert browser.open_page().status_code == 303  # still not logged in
    right = browser.login()
    assert right.status_code == 303 and right.headers["location"] == "/"
    port = server.base_url.rsplit(":", 1)[1]
    [cookie] = [c for c in right.headers.get_list("set-cookie") if c.startswith(f"toolkiln_session_{port}=")]
    attributes = {part.strip().lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "samesite=strict", "path=/"} <= attributes
    assert "secure" not in attributes  # plain HTTP: a Secure cookie would never come back
    page = browser.open_page()
    assert page.status_code == 200
    assert browser.http.get("/dashboard/login").headers["location"] == "/"  # logged in already
    assert "echo" in page.text and "steps" in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert browser.csrf
    records = server.audit_records()
    assert [(r["path"], r["status"]) for r in records] == [("/dashboard/login", 401)]


def test_the_login_form_needs_its_own_csrf_token(server: RunningServer) -> None:
    with Browser(server) as browser, Browser(server) as fresh:
        browser.login_form()  # the challenge cookie, but a form posted from elsewhere has no token
        forged = browser.http.post("/dashboard/login", data={"token": server.token, "csrf_token": "x"})
        assert forged.status_code == 403
        assert not any("toolkiln_session" in c for c in forged.headers.get_list("set-cookie"))
        # No challenge cookie at all:
        assert fresh.http.post("/dashboard/login", data={"token": server.token}).status_code == 403


def test_a_forged_cookie_is_no_session(server: RunningServer, browser: Browser) -> None:
    [(name, value)] = [(n, v) for n, v in browser.http.cookies.items() if n.startswith("toolkiln_session_")]
    issued, nonce, signature = value.split(".")
    for forged in (value, f"{issued}.{nonce}x.{signature}", f"{int(issued) + 1}.{nonce}.{signature}"):
        page = httpx2.get(f"{server.base_url}/", headers={"Cookie": f"{name}={forged}"})
        assert page.status_code == (200 if forged == value else 303)


def test_logout_ends_the_session(browser: Browser) -> None:
    assert browser.http.post("/dashboard/logout", data={"csrf_token": "wrong"}).status_code == 403
    out = browser.http.post("/dashboard/logout", data={"csrf_token": browser.csrf})
    assert out.status_code == 303 and out.headers["location"] == "/dashboard/login"
    assert browser.open_page().status_code == 303


def test_the_cookie_never_opens_mcp_or_rpc(server: RunningServer, browser: Browser) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for path in ("/mcp", "/rpc"):
        response = browser.http.post(
            path, json=body, headers={"Accept": "application/json, text/event-stream"}
        )
        assert response.status_code == 401, path


def test_the_guard_still_checks_host_and_origin_first(server: RunningServer, browser: Browser) -> None:
    assert browser.http.get("/", headers={"Host": "evil.example"}).status_code == 421
    evil = {"Origin": "https://evil.example"}
    assert browser.switch("echo", False, headers=evil).status_code == 403
    assert (
        browser.http.post("/dashboard/login", data={"token": server.token}, headers=evil).status_code == 403
    )


def test_every_state_change_needs_the_csrf_token(
    server: RunningServer, browser: Browser, project: Path
) -> None:
    for csrf in ("", "0" * 64):
        assert browser.switch("echo", False, headers={"X-CSRF-Token": csrf}).status_code == 403
        assert browser.call("echo", {"message": "x"}, headers={"X-CSRF-Token": csrf}).status_code == 403
    assert json.loads((project / "tools" / "echo.json").read_text())["enabled"] is True
    assert any(r.get("path") == "/dashboard/call" for r in server.audit_records())  # refusals are audited


def test_a_script_with_the_bearer_header_needs_no_cookie_and_no_csrf(server: RunningServer) -> None:
    response = httpx2.post(
        f"{server.base_url}/dashboard/tools/echo/enabled", json={"enabled": False}, headers=server.auth()
    )
    assert response.status_code == 200, response.text
    assert response.json()["served"] == 3


# --- switches ---------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_switch_writes_the_config_and_swaps_the_tools_in(
    server: RunningServer, browser: Browser, project: Path, mode: str
) -> None:
    config = project / "tools" / "echo.json"
    before = json.loads(config.read_text())
    told = ListChanges()

    async def switch(enabled: bool) -> httpx2.Response:
        return await anyio.to_thread.run_sync(browser.switch, "echo", enabled)

    async with mcp_client(server, mode, message_handler=told, cache=None) as client:
        async with contextlib.AsyncExitStack() as stack:
            if mode == "auto":  # a 2026-07-28 client listens; a 2025-11-25 session is told on its stream
                listening = await stack.enter_async_context(client.listen(tools_list_changed=True))
                told.follow(listening)
            assert "echo" in await names(client)
            off = await switch(False)
            assert off.status_code == 200, off.text
            assert off.json()["enabled"] is False and off.json()["served"] == 3
            assert 'id="tool-echo"' in off.json()["card"] and "disabled" in off.json()["card"]
            assert json.loads(config.read_text()) == {**before, "enabled": False}  # nothing else changed
            assert "echo" not in await names(client)
            await told.wait_for(1)
            assert (await switch(False)).status_code == 200  # again: no change, no harm
            on = await switch(True)
            assert on.status_code == 200 and on.json()["served"] == 4
            assert "echo" in await names(client)
            await told.wait_for(2)
        echo = await client.call_tool("echo", {"message": "back"})
        assert echo.content[0].text == "back"  # type: ignore[union-attr]
    assert json.loads(config.read_text()) == before
    assert httpx2.get(f"{server.base_url}/health").json()["tools"] == 4


def test_a_switch_without_watch_builds_but_reads_no_script(
    server: RunningServer, browser: Browser, project: Path, make_tool: MakeTool
) -> None:
    """`serve` reads no script unless asked to (--discover, --watch): a switch rebuilds
    from the configs only, so a script added since is not discovered by it."""
    make_tool("added.sh", "#!/bin/bash\n# Tool: added\n# Description: Added after the start\necho added\n")
    off = browser.switch("echo", False)
    assert off.status_code == 200, off.text
    assert off.json()["served"] == 3  # the 4 built tools, echo off; not `added`
    assert not (project / "tools" / "added.json").exists()


def test_the_fallback_switch_serves_the_unread_scripts_and_stops(
    server: RunningServer, browser: Browser, project: Path, make_tool: MakeTool
) -> None:
    """What `toolkiln fallback on|off` does, from the page: server.json's opt-in written,
    the folder rediscovered, the result rebuilt and served; the same guards as a switch."""
    make_tool("opts.py", GETOPT)
    assert "fallback-switch" in browser.open_page().text
    assert browser.http.post("/dashboard/fallback", json={"on": True}).status_code == 403  # no CSRF token
    headers = {"X-CSRF-Token": browser.csrf}
    assert browser.http.post("/dashboard/fallback", json={"on": "yes"}, headers=headers).status_code == 400
    on = browser.http.post("/dashboard/fallback", json={"on": True}, headers=headers)
    assert on.status_code == 200, on.text
    assert on.json() == {"on": True, "served": 5}
    assert json.loads((project / "server.json").read_text())["discovery"]["fallback"] == ["."]
    page = browser.open_page().text
    assert 'id="tool-opts"' in page and re.search(r'id="fallback-switch"[^>]*checked', page)
    off = browser.http.post("/dashboard/fallback", json={"on": False}, headers=headers)
    assert off.status_code == 200 and off.json()["served"] == 4
    assert json.loads((project / "server.json").read_text())["discovery"]["fallback"] == []


class ListChanges:
    """Counts the tool list changes a client is told of, in either era."""

    def __init__(self) -> None:
        self.count = 0

    async def __call__(self, message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.count += 1

    def follow(self, listening: Any) -> None:
        self._events = listening

    async def wait_for(self, count: int) -> None:
        with anyio.fail_after(10):
            while self.count < count:
                if hasattr(self, "_events"):
                    await self._events.__anext__()
                    self.count += 1
                else:
                    await anyio.sleep(0.05)


async def names(client: Any) -> set[str]:
    return {tool.name for tool in (await client.list_tools()).tools}


def test_a_switch_refuses_what_is_no_tool_config(browser: Browser, project: Path) -> None:
    for key in ("nope", "..%2Fserver", "echo.json"):
        response = browser.switch(key, False)
        assert response.status_code == 404, key
    assert browser.switch("echo", "no").status_code == 400  # type: ignore[arg-type]
    broken = project / "tools" / "greet.json"
    broken.write_text("{not json")
    response = browser.switch("greet", False)
    assert response.status_code == 404 and "invalid JSON" in response.json()["error"]
    assert "broken config" in browser.open_page().text


# --- calls ------------------------------------------------------------------------------


def test_a_call_streams_its_progress_and_logs_then_the_result(
    server: RunningServer, browser: Browser
) -> None:
    arrived: list[tuple[str, float]] = []
    with browser.http.stream(
        "POST", "/dashboard/call", json={"tool": "steps", "arguments": {"label": "goats"}},
        headers={"X-CSRF-Token": browser.csrf},
    ) as response:  # fmt: skip
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        body = ""
        for chunk in response.iter_text():
            body += chunk
            arrived += [(name, time.monotonic()) for name, _ in events(chunk)]
    stream = events(body)
    names = [name for name, _ in stream]
    assert names[0] == "start" and names[-1] == "result"
    logs = [data["message"] for name, data in stream if name == "log"]
    assert logs == ["counted goats 1", "counted goats 2", "counted goats 3"]
    progress = [data for name, data in stream if name == "progress"]
    assert progress and progress[-1] == {"progress": 3, "total": 3, "message": "goats 3"}
    result = stream[-1][1]
    assert result["isError"] is False
    assert result["structuredContent"] == {"counted": 3, "label": "goats"}
    # Live: the first log line came well before the result (the script takes ~0.6 s).
    first_log = next(at for name, at in arrived if name == "log")
    assert arrived[-1][1] - first_log > 0.2
    record = json.loads(server.audit_log.read_text().splitlines()[-1])
    assert (record["transport"], record["tool"], record["success"]) == ("dashboard", "steps", True)


def test_bad_arguments_and_unknown_tools_are_answered_in_the_stream(browser: Browser) -> None:
    invalid = events(browser.call("greet", {"times": 9}).text)
    result = invalid[-1][1]
    assert result["isError"] is True
    assert "'name' is required" in result["content"][0]["text"]
    unknown = events(browser.call("nope", {}).text)
    assert unknown[-1] == ("error", {"message": "Unknown tool: 'nope'"})
    assert (
        browser.http.post(
            "/dashboard/call", content=b"[1]", headers={"X-CSRF-Token": browser.csrf}
        ).status_code
        == 400
    )


def test_a_browser_that_goes_away_has_its_call_stopped(
    server: RunningServer, browser: Browser, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    body = {"tool": "hang", "arguments": {}}
    with browser.http.stream(
        "POST", "/dashboard/call", json=body, headers={"X-CSRF-Token": browser.csrf}
    ) as response:
        chunks = response.iter_text()  # kept: a dropped iterator closes the connection
        assert next(chunks).startswith("event: start")
        deadline = time.monotonic() + 10
        while not pids.exists() or len(pids.read_text().split()) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    browser.close()  # the connection goes, as when a tab is closed
    assert pids_alive([int(pid) for pid in pids.read_text().split()]) == []


def test_the_audit_panel_shows_the_latest_calls(server: RunningServer, browser: Browser) -> None:
    server.rpc("tools/call", {"name": "echo", "arguments": {"message": "from rpc"}})
    events(browser.call("echo", {"message": "<b>from the page</b>"}).text)
    panel = browser.http.get("/dashboard/audit")
    assert panel.status_code == 200
    rows = panel.text.split("<tr")[2:]  # newest first, after the heading
    assert "dashboard" in rows[0] and "&lt;b&gt;from the page&lt;/b&gt;" in rows[0]
    assert "rpc" in rows[1] and "from rpc" in rows[1]
    assert "<b>from" not in panel.text  # escaped


# --- modes ------------------------------------------------------------------------------


def test_no_auth_opens_the_dashboard_but_still_needs_the_csrf_token(
    project: Path, tools_dir: Path, state: Path
) -> None:
    with http_server(project, state, "--tools-dir", str(tools_dir), "--no-auth") as running:
        with httpx2.Client(base_url=running.base_url, timeout=60) as http:
            page = http.get("/")
            assert page.status_code == 200 and "No authentication" in page.text
            assert http.get("/dashboard/login").status_code == 303
            url = "/dashboard/tools/echo/enabled"
            assert http.post(url, json={"enabled": False}).status_code == 403
            csrf = {"X-CSRF-Token": meta_csrf(page.text)}
            response = http.post(url, json={"enabled": False}, headers=csrf)
        assert response.status_code == 200, response.text


def test_no_dashboard_leaves_only_the_protocol_routes(project: Path, tools_dir: Path, state: Path) -> None:
    with http_server(project, state, "--tools-dir", str(tools_dir), "--no-dashboard") as running:
        assert httpx2.get(f"{running.base_url}/").status_code == 401
        assert httpx2.get(f"{running.base_url}/dashboard/login").status_code == 401
        assert "dashboard_url" not in running.info


def test_under_tls_the_cookie_is_secure(project: Path, tools_dir: Path, state: Path, tmp_path: Path) -> None:
    import ssl

    from tests.serve.http.test_http import _self_signed_certificate

    cert, key = _self_signed_certificate(tmp_path)
    with (
        http_server(
            project, state, "--tools-dir", str(tools_dir), "--tls-cert", str(cert), "--tls-key", str(key)
        ) as running,
        Browser(running, verify=ssl.create_default_context(cafile=str(cert))) as browser,
    ):
        response = browser.login()
    [cookie] = [c for c in response.headers.get_list("set-cookie") if c.startswith("toolkiln_session_")]
    assert "secure" in cookie.lower()


def test_the_discovery_file_and_the_banner_name_the_dashboard(server: RunningServer) -> None:
    assert server.info["dashboard_url"] == f"{server.base_url}/"
    server.stop()
    assert f"Dashboard: open {server.base_url}/ in a browser (log in with the token)." in server.stderr()
