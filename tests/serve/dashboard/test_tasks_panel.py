"""The dashboard's Tasks panel (tasks_panel.py), over real HTTP against `toolkiln serve
--http` as a process, with tasks started by a 2026-07-28 client over /mcp: every task
listed without its id, a result shown only when asked for and escaped, and a Cancel
that needs the session's CSRF token and stops the script's process group."""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.conftest import MakeTool, tune_tool
from tests.serve.dashboard.conftest import Browser
from tests.serve.http_server import RunningServer, http_server
from tests.serve.tasks.test_tasks import LINGER
from tests.serve.tasks_wire import http_request, read_pids, wait_for, wait_gone
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

# Runs only as a task; its output is an attacker's words.
SHOUT = """\
#!/bin/sh
# Tool: shout
# Description: Says something with markup in it
echo 'INFO about to shout' >&2
echo 'loud <img src=x onerror=alert(1)>'
"""


def make_task_tools(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    """`linger` (a task by its long timeout: waits, with a child, and writes their pids)
    and `shout` (only a task)."""
    make_tool("linger.py", LINGER)
    make_tool("shout.sh", SHOUT)
    assert not discover_tools(tools_dir, config_dir).errors
    tune_tool(config_dir, "linger", timeout_seconds=600)
    tune_tool(config_dir, "shout", task="required")
    build_catalog(config_dir, tools_dir)


@pytest.fixture
def task_server(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, state: Path
) -> Iterator[RunningServer]:
    make_task_tools(make_tool, tools_dir, config_dir)
    with http_server(config_dir, state, "--tools-dir", str(tools_dir)) as running:
        yield running


def _panel_once_in_progress(browser: Browser) -> httpx2.Response:
    """The Tasks panel once the script's progress line reached it (the script writes its
    pids before it prints that line)."""
    deadline = time.monotonic() + 30
    while "1/100 waiting" not in (panel := browser.http.get("/dashboard/tasks")).text:
        assert time.monotonic() < deadline, panel.text
        time.sleep(0.05)
    return panel


def handles(html: str) -> list[str]:
    return re.findall(r'data-task="([^"]+)"', html)


def test_the_panel_lists_tasks_by_handle_and_cancel_needs_the_session_and_its_csrf_token(
    task_server: RunningServer, tools_dir: Path
) -> None:
    server = task_server
    call = functools.partial(http_request, server.mcp_url, server.token)
    task_id = call("tools/call", {"name": "linger", "arguments": {}})["taskId"]
    script, child = read_pids(tools_dir)
    with Browser(server) as browser, Browser(server) as other:
        for client in (browser, other):
            assert client.login().status_code == 303
        page = browser.open_page()
        assert 'id="tasks-title"' in page.text and "linger" in page.text
        assert task_id not in page.text  # what a client polls with never reaches the page
        panel = _panel_once_in_progress(browser)
        assert panel.status_code == 200 and task_id not in panel.text
        assert panel.headers["content-security-policy"].startswith("default-src 'none'")
        [handle] = handles(panel.text)
        assert "working" in panel.text and "1/100 waiting" in panel.text
        assert "task-cancel" in panel.text

        # No CSRF token: refused, and the script runs on.
        refused = browser.http.post(f"/dashboard/tasks/{handle}/cancel", json={})
        assert refused.status_code == 403
        # Another session's page never saw this handle: it names no task there.
        other.open_page()
        headers = {"X-CSRF-Token": other.csrf}
        assert (
            other.http.post(f"/dashboard/tasks/{handle}/cancel", json={}, headers=headers).status_code == 404
        )
        assert handles(other.http.get("/dashboard/tasks").text) != [handle]
        assert call("tasks/get", {"taskId": task_id})["status"] == "working"

        headers = {"X-CSRF-Token": browser.csrf}
        done = browser.http.post(f"/dashboard/tasks/{handle}/cancel", json={}, headers=headers)
        assert done.status_code == 200 and done.json() == {"cancelled": True}
        wait_gone(script, child)
        task = wait_for(call, task_id, "cancelled", "completed", "failed")
        assert task["status"] == "cancelled" and task["statusMessage"] == "Cancelled on the dashboard."
        again = browser.http.post(f"/dashboard/tasks/{handle}/cancel", json={}, headers=headers)
        assert again.status_code == 409
        after = browser.http.get("/dashboard/tasks").text
        assert "cancelled" in after and "task-cancel" not in after

    # Without a session: nothing.
    with Browser(server) as stranger:
        assert stranger.http.get("/dashboard/tasks").status_code == 401
        assert stranger.http.get(f"/dashboard/tasks/{handle}").status_code == 401


def test_a_tasks_result_shows_only_when_asked_for_and_as_text(task_server: RunningServer) -> None:
    server = task_server
    call = functools.partial(http_request, server.mcp_url, server.token)
    task_id = call("tools/call", {"name": "shout", "arguments": {}})["taskId"]
    wait_for(call, task_id, "completed")
    with Browser(server) as browser:
        assert browser.login().status_code == 303
        panel = browser.http.get("/dashboard/tasks").text
        assert "completed" in panel and "loud" not in panel  # the result is not in the list
        [handle] = handles(panel)
        detail = browser.http.get(f"/dashboard/tasks/{handle}")
        assert detail.status_code == 200
        assert "loud &lt;img src=x onerror=alert(1)&gt;" in detail.text and "<img" not in detail.text
        assert "INFO about to shout" in detail.text
        assert browser.http.get("/dashboard/tasks/not-a-handle").status_code == 404
    # A script holding the token (not a browser) reads the panel with the bearer header.
    bearer = Browser(server, headers=server.auth())
    with bearer:
        assert handles(bearer.http.get("/dashboard/tasks").text) != []
