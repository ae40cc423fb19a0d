"""A small project served with `toolkiln serve --http` for the dashboard's tests, and a
browser-like HTTP client that logs in to it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.conftest import MakeTool
from tests.serve.http.test_http import ECHO, HANG  # the same echo and hanging tools
from tests.serve.http_server import RunningServer, http_server
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

# Progress and logs a little apart, so that they stream before the result.
STEPS = """\
#!/bin/bash
# Tool: steps
# Description: Count to three, slowly, saying so
# @param label: What to count (type: string, default: sheep)
for i in 1 2 3; do
  echo "PROGRESS $i/3 $label $i" >&2
  echo "INFO counted $label $i" >&2
  sleep 0.2
done
echo "{\\"counted\\": 3, \\"label\\": \\"$label\\"}"
"""


# Every kind of form field.
GREET = """\
#!/bin/bash
# Tool: greet
# Description: Greet someone, in a style
# @param name: Who (type: string, required: true, max: 40)
# @param times: How many times (type: integer, default: 1, min: 1, max: 5)
# @param style: How (type: string, enum: plain|loud, default: plain)
# @param sign: Add a signature (type: boolean, default: false)
line="Hello, $name"
[ "$style" = loud ] && line="${line^^}!"
[ "$sign" = true ] && line="$line -- toolkiln"
for _ in $(seq "$times"); do echo "$line"; done
"""


@pytest.fixture
def project(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    """The config folder of four built tools."""
    make_tool("echo.sh", ECHO)
    make_tool("steps/run.sh", STEPS)
    make_tool("hang/run.sh", HANG)
    make_tool("greet/run.sh", GREET)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.fixture
def server(project: Path, tools_dir: Path, state: Path, tmp_path: Path) -> Iterator[RunningServer]:
    with http_server(project, state, "--tools-dir", str(tools_dir), PIDS=str(tmp_path / "pids")) as running:
        yield running


class Browser:
    """An HTTP client that keeps cookies, as a browser does, and reads the page's CSRF token."""

    def __init__(self, server: RunningServer, **client: Any) -> None:
        self.server = server
        self.http = httpx2.Client(base_url=server.base_url, timeout=60, **client)
        self.csrf = ""

    def login_form(self) -> str:
        """Load the login page; its form's CSRF token."""
        page = self.http.get("/dashboard/login")
        assert page.status_code == 200, page.text
        return hidden_csrf(page.text)

    def login(self, token: str | None = None) -> httpx2.Response:
        csrf = self.login_form()
        return self.http.post(
            "/dashboard/login", data={"token": token or self.server.token, "csrf_token": csrf}
        )

    def open_page(self) -> httpx2.Response:
        page = self.http.get("/")
        if page.status_code == 200:
            self.csrf = meta_csrf(page.text)
        return page

    def switch(self, key: str, enabled: bool, **request: Any) -> httpx2.Response:
        headers = {"X-CSRF-Token": self.csrf, **request.pop("headers", {})}
        return self.http.post(f"/dashboard/tools/{key}/enabled", json={"enabled": enabled}, headers=headers)

    def call(self, tool: str, arguments: dict[str, Any], **request: Any) -> httpx2.Response:
        headers = {"X-CSRF-Token": self.csrf, **request.pop("headers", {})}
        body = {"tool": tool, "arguments": arguments}
        return self.http.post("/dashboard/call", json=body, headers=headers, **request)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@pytest.fixture
def browser(server: RunningServer) -> Iterator[Browser]:
    """Logged in, with the page's CSRF token."""
    with Browser(server) as client:
        assert client.login().status_code == 303
        assert client.open_page().status_code == 200
        yield client


def hidden_csrf(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, html
    return match.group(1)


def meta_csrf(html: str) -> str:
    match = re.search(r'<meta name="csrf-token" content="([^"]*)">', html)
    assert match, html
    return match.group(1)


def events(stream: str) -> list[tuple[str, Any]]:
    """The (event, data) pairs of a text/event-stream body."""
    parsed = []
    for block in stream.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            parsed.append((fields["event"], json.loads(fields["data"])))
    return parsed
