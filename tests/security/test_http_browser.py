"""Issue 16, hole 13, with a real browser: a page served on another loopback port
(what any local dev server, or a page it was tricked into serving, can be) tries every
way a page can send a request to `toolkiln serve --http --no-auth` without asking first:
`no-cors` fetches with a `text/plain` body, a CORS fetch with a JSON body, a `text/plain`
form that smuggles JSON, all to `/rpc` and `/mcp`. No tool may run (a marker file says)."""

# ruff: noqa: F811  (fixtures imported by name are parameters here)

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.test_http import marker, project  # noqa: F401  (fixtures)
from tests.serve.dashboard.test_browser import WAIT, chrome, pytestmark  # noqa: F401  (fixture, skip)
from tests.serve.http_server import http_server

try:
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # the dev extra not installed: pytestmark skips
    pass

PAGE = """<!doctype html>
<title>loading</title>
<iframe name="sink"></iframe>
<form id="form" method="POST" enctype="text/plain" target="sink" action="TARGET/rpc">
  <input name='{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "mark",
   "arguments": {"word": "form"}}, "padding": "' value='"}'>
</form>
<script>
const call = (word) => JSON.stringify(
  {jsonrpc: "2.0", id: 1, method: "tools/call", params: {name: "mark", arguments: {word}}});
const simple = {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}};
Promise.allSettled([
  fetch("TARGET/rpc", {...simple, body: call("fetch-rpc")}),
  fetch("TARGET/mcp", {...simple, body: call("fetch-mcp")}),
  fetch("TARGET/rpc", {method: "POST", headers: {"Content-Type": "application/json"}, body: call("cors")}),
]).then(() => {
  document.querySelector("iframe").onload = () => { document.title = "done"; };
  document.getElementById("form").submit();
});
</script>
"""


@pytest.fixture
def attacker_page(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A folder served on another loopback port, by `localhost` (the old allowlist's name)."""
    folder = tmp_path / "site"
    folder.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(folder), **kwargs)  # type: ignore[arg-type]

        def log_message(self, format: str, *args: object) -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield folder, f"http://localhost:{site.server_address[1]}"
    finally:
        site.shutdown()
        site.server_close()


def test_a_page_on_another_local_port_runs_no_tool(
    project: Path,
    state: Path,
    marker: Path,
    attacker_page: tuple[Path, str],
    chrome: WebDriver,
) -> None:
    folder, site = attacker_page
    with http_server(project, state, "--no-auth", MARKER=str(marker)) as server:
        (folder / "index.html").write_text(PAGE.replace("TARGET", server.base_url))
        chrome.get(f"{site}/index.html")
        WebDriverWait(chrome, WAIT).until(lambda driver: driver.title == "done")
        denied = server.audit_records()
    assert not marker.exists(), marker.read_text()
    assert {entry["path"] for entry in denied if entry["event"] == "denied"} == {"/rpc", "/mcp"}
