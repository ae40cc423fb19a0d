"""The dashboard loads on its first request (dashboard/mount.py): a server that only
serves MCP never imports it, and the first visit finds it whole, behind the same
admission as before. The server's own import lines (`PYTHONPROFILEIMPORTTIME`, on its
stderr) say what it has imported so far."""

from __future__ import annotations

from pathlib import Path

from tests.serve.dashboard.conftest import Browser
from tests.serve.http_server import RunningServer, http_server

DASHBOARD_ONLY = ("toolkiln.serve.dashboard.routes", "toolkiln.serve.dashboard.sessions", "jinja2")
TASKS_ONLY = ("sqlite3", "toolkiln.serve.tasks.sqlite")  # the task store: made on a first task


def imported(server: RunningServer) -> set[str]:
    return {
        line.rsplit("|", 1)[1].strip()
        for line in server.stderr().splitlines()
        if line.startswith("import time:") and "|" in line
    }


def test_the_dashboard_is_imported_on_its_first_request_and_not_before(
    project: Path, tools_dir: Path, state: Path
) -> None:
    with http_server(project, state, "--tools-dir", str(tools_dir), PYTHONPROFILEIMPORTTIME="1") as server:
        listed = server.rpc("tools/list").json()["result"]["tools"]
        assert "echo" in {tool["name"] for tool in listed}
        called = server.rpc("tools/call", {"name": "echo", "arguments": {"message": "hi"}}).json()
        assert called["result"]["content"][0]["text"].strip() == "hi"
        assert server.rpc("tools/list").status_code == 200
        before = imported(server)
        assert "toolkiln.serve.dashboard.mount" in before
        assert before.isdisjoint(DASHBOARD_ONLY) and before.isdisjoint(TASKS_ONLY)

        # Before any page: a path the dashboard does not have is 404, a method it does not
        # take 405, and a panel without a session or the token 401, as its routes say.
        with Browser(server) as anonymous:
            assert anonymous.http.get("/dashboard/nothing-here").status_code == 404
            assert anonymous.http.delete("/").status_code == 405
            assert anonymous.http.get("/dashboard/audit").status_code == 401
            assert anonymous.http.get("/").headers["location"] == "/dashboard/login"

        with Browser(server) as browser:
            assert browser.login().status_code == 303
            page = browser.open_page()
            assert page.status_code == 200 and "echo" in page.text
        assert set(DASHBOARD_ONLY) <= imported(server)
