"""A real browser on the dashboard: Debian's chromium, headless, driven through
chromedriver by selenium, against `toolkiln serve --http` as a process. It logs in,
switches a tool off and on (and tools/list over MCP follows), runs calls and sees their
output, progress and logs, and saves a screenshot of the page as a test artifact (to
$TOOLKILN_ARTIFACTS, or tests/artifacts/). `.ci/run` installs chromium where it can."""

from __future__ import annotations

import functools
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import MakeTool, tune_tool
from tests.serve.dashboard.test_questions import ASK
from tests.serve.dashboard.test_tasks_panel import make_task_tools
from tests.serve.http_server import RunningServer, http_server, mcp_client
from tests.serve.tasks_wire import http_request, read_pids, wait_for, wait_gone
from tests.test_fallback_flag import GETOPT
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

try:
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:  # the dev extra not installed
    webdriver = None  # type: ignore[assignment]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
ARTIFACTS = Path(os.environ.get("TOOLKILN_ARTIFACTS") or Path(__file__).parents[2] / "artifacts")
WAIT = 20

pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER and webdriver),
    reason="needs chromium and chromedriver (apt-get install chromium chromium-driver; .ci/run does) "
    "and selenium (pip install -e '.[dev]')",
)


@pytest.fixture
def chrome(tmp_path: Path) -> Iterator[WebDriver]:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--window-size=1280,1000", f"--user-data-dir={tmp_path / 'profile'}",
    ):  # fmt: skip
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
    try:
        yield driver
    finally:
        driver.quit()


def test_a_browser_logs_in_switches_a_tool_and_runs_calls(server: RunningServer, chrome: WebDriver) -> None:
    # A switched card is replaced by the server's new one: an element found just before may be gone.
    wait = WebDriverWait(chrome, WAIT, ignored_exceptions=[StaleElementReferenceException])

    # Log in: the page sends a browser without a session to the login form.
    chrome.get(f"{server.base_url}/")
    wait.until(lambda d: d.current_url.endswith("/dashboard/login"))
    chrome.find_element(By.ID, "token").send_keys(server.token)
    chrome.find_element(By.CSS_SELECTOR, ".login-form button").click()
    wait.until(lambda d: d.title == "toolkiln dashboard")
    assert chrome.execute_script("return document.cookie") == ""  # HttpOnly: no script can read it
    assert tools_listed(server) == {"echo", "greet", "hang", "steps"}

    # Switch echo off, then on: the card follows, and so does tools/list over MCP.
    flip(chrome, "echo")
    wait.until(text_of("#tool-echo .status", "disabled"))
    assert tools_listed(server) == {"greet", "hang", "steps"}
    assert chrome.find_element(By.CSS_SELECTOR, "[data-health=tools]").text == "3"
    flip(chrome, "echo")
    wait.until(text_of("#tool-echo .status", "served"))
    assert tools_listed(server) == {"echo", "greet", "hang", "steps"}

    # Fill greet's form (text, number, choice, checkbox) and run it.
    greet = open_form(chrome, "greet")
    greet.find_element(By.NAME, "name").send_keys("Ada")
    greet.find_element(By.NAME, "times").send_keys("2")
    Select(greet.find_element(By.NAME, "style")).select_by_visible_text("loud")
    greet.find_element(By.NAME, "sign").click()
    greet.find_element(By.CSS_SELECTOR, "button.run").click()
    wait.until(text_of("#tool-greet .state", "done"))
    result = chrome.find_element(By.CSS_SELECTOR, "#tool-greet .result pre").text
    assert result == "HELLO, ADA! -- toolkiln\nHELLO, ADA! -- toolkiln"

    # A call with progress and logs: they show as they come, then the result.
    steps = open_form(chrome, "steps")
    chrome.execute_script(RECORD_CARD, "#tool-steps")
    steps.find_element(By.CSS_SELECTOR, "button.run").click()
    wait.until(text_of("#tool-steps .state", "done"))
    seen = chrome.execute_script("return window.cardSnapshots")
    assert ["running…", 1] in seen  # the first log line showed while the call ran
    logs = [item.text for item in chrome.find_elements(By.CSS_SELECTOR, "#tool-steps .log li")]
    assert logs == ["INFO counted sheep 1", "INFO counted sheep 2", "INFO counted sheep 3"]
    assert chrome.find_element(By.CSS_SELECTOR, "#tool-steps .progress-message").text == "3/3 sheep 3"

    # A call with bad arguments shows the server's message; the audit panel has them all.
    greet.find_element(By.NAME, "name").clear()
    greet.find_element(By.CSS_SELECTOR, "button.run").click()
    wait.until(text_of("#tool-greet .state", "tool error"))
    assert "'name' is required" in chrome.find_element(By.CSS_SELECTOR, "#tool-greet .result").text
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#audit tbody tr")) == 3)
    assert "dashboard" in chrome.find_element(By.CSS_SELECTOR, "#audit tbody tr").text

    save_screenshot(chrome, "dashboard.png")
    problems = [entry for entry in chrome.get_log("browser") if entry["level"] == "SEVERE"]
    assert problems == []  # no script error, no Content-Security-Policy violation


# A one-line title and a many-line body (its schema says text/plain), and a failure that
# says why over several lines, one of them markup (a tool's output is an attacker's words).
NOTE = """\
#!/bin/bash
# Tool: note
# Description: Keep a note
# @param title: The title (type: string, required: true)
# @param body: The note (type: string, multiline: true)
echo "$title: $body"
"""
FAIL = """\
#!/bin/bash
# Tool: fail
# Description: Fail, saying why at length
echo 'the disk is full <img src=x onerror=alert(1)>' >&2
echo 'second line: nothing was written' >&2
exit 1
"""


@pytest.fixture
def asking_server(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, state: Path
) -> Iterator[RunningServer]:
    make_tool("ask.py", ASK)
    make_tool("note/run.sh", NOTE)
    make_tool("fail/run.sh", FAIL)
    assert not discover_tools(tools_dir, config_dir).errors
    tune_tool(config_dir, "ask", interactive=True)
    build_catalog(config_dir, tools_dir)
    with http_server(config_dir, state, "--tools-dir", str(tools_dir)) as running:
        yield running


def test_a_browser_sees_one_line_inputs_whole_errors_and_answers_a_tools_question(
    asking_server: RunningServer, chrome: WebDriver
) -> None:
    server = asking_server
    wait = WebDriverWait(chrome, WAIT)
    chrome.get(f"{server.base_url}/")
    chrome.find_element(By.ID, "token").send_keys(server.token)
    chrome.find_element(By.CSS_SELECTOR, ".login-form button").click()
    wait.until(lambda d: d.title == "toolkiln dashboard")

    # A plain string is a one-line input; a multi-line one a text area.
    note = open_form(chrome, "note")
    assert note.find_element(By.NAME, "title").tag_name == "input"
    assert note.find_element(By.NAME, "body").tag_name == "textarea"
    note.find_element(By.NAME, "title").send_keys("Shopping")
    note.find_element(By.NAME, "body").send_keys("milk\nbread")
    save_screenshot(chrome, "dashboard-one-line-input.png")
    note.find_element(By.CSS_SELECTOR, "button.run").click()
    wait.until(text_of("#tool-note .state", "done"))
    assert chrome.find_element(By.CSS_SELECTOR, "#tool-note .result pre").text == "Shopping: milk\nbread"

    # A failure: the audit panel shows its first line, and the whole error when opened, as text.
    fail = open_form(chrome, "fail")
    fail.find_element(By.CSS_SELECTOR, "button.run").click()
    wait.until(text_of("#tool-fail .state", "tool error"))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#audit tbody tr:first-child details.error"))
    details = chrome.find_element(By.CSS_SELECTOR, "#audit tbody tr:first-child details.error")
    whole = details.find_element(By.TAG_NAME, "pre")
    assert not whole.is_displayed()
    details.find_element(By.TAG_NAME, "summary").click()
    wait.until(lambda d: whole.is_displayed())
    assert "second line: nothing was written" in whole.text
    assert "the disk is full <img src=x onerror=alert(1)>" in whole.text  # shown, not run
    assert chrome.find_elements(By.CSS_SELECTOR, "#audit img") == []
    save_screenshot(chrome, "dashboard-audit-error.png")

    # An interactive tool asks: a form on the page, its message as text; the answer goes back.
    ask = open_form(chrome, "ask")
    ask.find_element(By.NAME, "greeting").send_keys("Welcome")
    ask.find_element(By.CSS_SELECTOR, "button.run").click()
    question = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#tool-ask form.question"))
    message = question.find_element(By.CSS_SELECTOR, ".question-message").text
    assert message == "Who are you? <img src=x onerror=alert(1)>"
    assert question.find_elements(By.TAG_NAME, "img") == []
    assert chrome.find_element(By.CSS_SELECTOR, "#tool-ask .state").text == "waiting for your answer…"
    assert question.find_element(By.NAME, "age").get_attribute("value") == "30"  # its default
    assert Select(question.find_element(By.NAME, "colour")).first_selected_option.text == "green"
    question.find_element(By.CSS_SELECTOR, "button.accept").click()  # the name is required
    wait.until(text_of("#tool-ask .question-state", "answer: 'name' is a required property"))
    question.find_element(By.NAME, "name").send_keys("Ada")
    save_screenshot(chrome, "dashboard-question.png")
    question.find_element(By.CSS_SELECTOR, "button.accept").click()
    wait.until(text_of("#tool-ask .state", "done"))
    result = chrome.find_element(By.CSS_SELECTOR, "#tool-ask .result pre").text
    assert json.loads(result)["greeting"] == "Welcome, Ada"
    assert json.loads(result)["answer"]["content"] == {
        "name": "Ada",
        "age": 30,
        "colour": "green",
        "subscribe": True,
    }
    assert chrome.find_element(By.CSS_SELECTOR, "#tool-ask .question-done").text.startswith(
        "You answered: Who"
    )
    save_screenshot(chrome, "dashboard-answered.png")
    problems = [entry for entry in chrome.get_log("browser") if entry["level"] == "SEVERE"]
    refused = [entry for entry in problems if "/dashboard/questions/" in entry["message"]]
    assert len(refused) == 1 and "400" in refused[0]["message"]  # the answer without the required name
    assert [entry for entry in problems if entry not in refused] == []  # no script error, no CSP violation


def test_a_browser_sees_tasks_come_live_opens_a_result_and_cancels_a_running_one(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, state: Path, chrome: WebDriver
) -> None:
    make_task_tools(make_tool, tools_dir, config_dir)
    wait = WebDriverWait(chrome, WAIT, ignored_exceptions=[StaleElementReferenceException])
    with http_server(config_dir, state, "--tools-dir", str(tools_dir)) as server:
        chrome.get(f"{server.base_url}/")
        chrome.find_element(By.ID, "token").send_keys(server.token)
        chrome.find_element(By.CSS_SELECTOR, ".login-form button").click()
        wait.until(lambda d: d.title == "toolkiln dashboard")
        assert "No tasks" in chrome.find_element(By.ID, "tasks").text

        # Tasks started by an MCP client after the page loaded show up on their own.
        call = functools.partial(http_request, server.mcp_url, server.token)
        shout = call("tools/call", {"name": "shout", "arguments": {}})["taskId"]
        wait_for(call, shout, "completed")
        linger = call("tools/call", {"name": "linger", "arguments": {}})["taskId"]
        script, child = read_pids(tools_dir)
        row = "#tasks tr.task:first-child"
        wait.until(text_of(f"{row} .task-progress-text", "1/100 waiting"))
        assert chrome.find_element(By.CSS_SELECTOR, f"{row} .task-status").text == "working"
        assert chrome.find_element(By.CSS_SELECTOR, f"{row} .task-tool").text == "linger"
        assert linger not in chrome.page_source and shout not in chrome.page_source

        # The finished one's result, on demand, as text.
        done = "#tasks tr.task:nth-child(2)"
        assert chrome.find_element(By.CSS_SELECTOR, f"{done} .task-status").text == "completed"
        chrome.find_element(By.CSS_SELECTOR, f"{done} button.task-show").click()
        result = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#task-detail .task-result"))
        assert result.text == "loud <img src=x onerror=alert(1)>"
        assert chrome.find_elements(By.CSS_SELECTOR, "#task-detail img") == []

        # Cancel the running one: its row says so, and its processes are gone.
        chrome.find_element(By.CSS_SELECTOR, f"{row} button.task-cancel").click()
        wait.until(text_of(f"{row} .task-status", "cancelled"))
        assert chrome.find_elements(By.CSS_SELECTOR, f"{row} button.task-cancel") == []
        wait_gone(script, child)
        assert call("tasks/get", {"taskId": linger})["statusMessage"] == "Cancelled on the dashboard."
        save_screenshot(chrome, "dashboard-tasks.png")
        problems = [entry for entry in chrome.get_log("browser") if entry["level"] == "SEVERE"]
        assert problems == []  # no script error, no Content-Security-Policy violation


# A help-json tool with a description of two lines and a boolean that defaults to true.
SHOUT = """\
#!/bin/bash
if [ "$1" = "--help" ]; then
  echo '{"description": "Shout a word.\\nOn a line of its own: <b>loudly</b>."}'
  echo '{"word": {"description": "The word", "value_type": "string", "required": true},
         "lower": {"description": "Lowercase it", "value_type": "boolean", "default_value": true}}' >&2
  exit 0
fi
cat
"""
# Every fetch's body, as the page sent it.
RECORD_SENT = """
window.sentBodies = [];
const original = window.fetch;
window.fetch = (url, options) => {
  if (options && typeof options.body === 'string') window.sentBodies.push([String(url), options.body]);
  return original(url, options);
};
"""


def test_a_served_folder_shows_the_version_the_folder_its_lines_and_sends_no_default(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, state: Path, chrome: WebDriver
) -> None:
    """`serve DIR`: the header names toolkiln's version (not the tasks panel's), the page the
    folder served (not the private config folder), a description keeps its line breaks (as
    text), the Try-it form leaves a boolean's default to the server, and the fallback
    switch serves the script whose arguments cannot be read."""
    from toolkiln import __version__

    make_tool("shout.sh", SHOUT)
    make_tool("opts.py", GETOPT)
    wait = WebDriverWait(chrome, WAIT)
    with http_server(config_dir, state, str(tools_dir)) as server:
        chrome.get(f"{server.base_url}/")
        chrome.find_element(By.ID, "token").send_keys(server.token)
        chrome.find_element(By.CSS_SELECTOR, ".login-form button").click()
        wait.until(lambda d: d.title == "toolkiln dashboard")
        assert chrome.find_element(By.CSS_SELECTOR, "header.top h1 small").text == __version__
        assert chrome.find_element(By.CSS_SELECTOR, ".tools .hint code.tools-dir").text == str(tools_dir)
        description = chrome.find_element(By.CSS_SELECTOR, "#tool-shout .description")
        assert description.text == "Shout a word.\nOn a line of its own: <b>loudly</b>."
        assert description.find_elements(By.TAG_NAME, "b") == []  # text, not markup

        shout = open_form(chrome, "shout")
        assert shout.find_element(By.NAME, "lower").is_selected()  # its default, shown
        chrome.execute_script(RECORD_SENT)
        shout.find_element(By.NAME, "word").send_keys("hey")
        shout.find_element(By.CSS_SELECTOR, "button.run").click()
        wait.until(text_of("#tool-shout .state", "done"))
        shout.find_element(By.NAME, "lower").click()  # unticked: that is the user's, and sent
        shout.find_element(By.CSS_SELECTOR, "button.run").click()
        wait.until(lambda d: len(d.execute_script("return window.sentBodies")) == 2)
        sent = [json.loads(body) for url, body in chrome.execute_script("return window.sentBodies")]
        assert [body["arguments"] for body in sent] == [{"word": "hey"}, {"word": "hey", "lower": False}]

        assert not chrome.find_elements(By.ID, "tool-opts")
        chrome.find_element(By.ID, "fallback-switch").click()
        wait.until(lambda d: d.find_elements(By.ID, "tool-opts"))  # the page reloaded with it
        assert chrome.find_element(By.ID, "fallback-switch").is_selected()
        assert "opts" in tools_listed(server)
        save_screenshot(chrome, "dashboard-folder.png")
        problems = [entry for entry in chrome.get_log("browser") if entry["level"] == "SEVERE"]
        assert problems == []


# Every change to a card, as (its state, how many log lines): what a person saw, however
# quickly the call ends, where polling from the test could miss the running state.
RECORD_CARD = """
const card = document.querySelector(arguments[0]);
window.cardSnapshots = [];
new MutationObserver(() => window.cardSnapshots.push([
  card.querySelector('.state')?.textContent ?? '', card.querySelectorAll('.log li').length,
])).observe(card, {subtree: true, childList: true, characterData: true});
"""


def flip(chrome: WebDriver, key: str) -> None:
    switch = chrome.find_element(By.CSS_SELECTOR, f"#tool-{key} .switch-input")
    chrome.execute_script("arguments[0].scrollIntoView({block: 'center'})", switch)
    switch.click()


def open_form(chrome: WebDriver, key: str) -> Any:
    chrome.find_element(By.CSS_SELECTOR, f"#tool-{key} details.try summary").click()
    return chrome.find_element(By.CSS_SELECTOR, f"#tool-{key} form.try-form")


def text_of(selector: str, start: str) -> Callable[[WebDriver], bool]:
    return lambda driver: driver.find_element(By.CSS_SELECTOR, selector).text.startswith(start)


def tools_listed(server: RunningServer) -> set[str]:
    async def listed() -> set[str]:
        async with mcp_client(server, "legacy", cache=None) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    return anyio.run(listed)


def save_screenshot(chrome: WebDriver, name: str) -> None:
    """The whole page, as a person would see it."""
    height = chrome.execute_script("window.scrollTo(0, 0); return document.documentElement.scrollHeight")
    chrome.set_window_size(1280, min(int(height) + 100, 6000))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert chrome.save_screenshot(str(ARTIFACTS / name))
