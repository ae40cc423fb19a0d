"""An interactive tool's questions on the dashboard (questions.py, live.py), over real
HTTP against `toolkiln serve --http` as a process: asked on the call's event stream as a
form, answered with `POST /dashboard/questions/<id>` by the session that started the
call only, with its CSRF token; ended with the call (its timeout, the tab closed)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.conftest import MakeTool
from tests.serve.dashboard.conftest import Browser, events
from tests.serve.http_server import RunningServer, http_server
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

# Asks one question (its message carries markup, to show it is text), then reports the answer.
ASK = """\
#!/usr/bin/env python3
# Tool: ask
# Description: Ask who you are, then greet you
# @param greeting: How to greet (type: string, default: Hello)
import json, os, sys
arguments = json.loads(sys.stdin.readline())
print("INFO about to ask", file=sys.stderr, flush=True)
print("ELICIT " + json.dumps({"message": "Who are you? <img src=x onerror=alert(1)>", "requestedSchema": {
    "type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", "title": "Your name"},
        "age": {"type": "integer", "minimum": 0, "default": 30},
        "colour": {"type": "string", "enum": ["red", "green"], "default": "green"},
        "subscribe": {"type": "boolean", "default": True}}}}), file=sys.stderr, flush=True)
answer = json.loads(sys.stdin.readline())
if answer.get("action") == "accept":
    greeting = arguments["greeting"] + ", " + answer["content"]["name"]
    print(json.dumps({"greeting": greeting, "answer": answer}))
else:
    print(json.dumps({"answer": answer}))
"""
# Asks the client's model, which the page does not have.
SAMPLE = """\
#!/usr/bin/env python3
# Tool: sample
# Description: Ask the model for a joke
import json, sys
sys.stdin.readline()
joke = {"role": "user", "content": {"type": "text", "text": "a joke"}}
print("SAMPLE " + json.dumps({"messages": [joke], "maxTokens": 9}), file=sys.stderr, flush=True)
print(sys.stdin.readline().strip())
"""


@pytest.fixture
def asking(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("ask.py", ASK)
    make_tool("slow_ask.py", ASK.replace("# Tool: ask", "# Tool: slow_ask"))
    make_tool("sample.py", SAMPLE)
    assert not discover_tools(tools_dir, config_dir).errors
    for name in ("ask", "slow_ask", "sample"):
        path = config_dir / "tools" / f"{name}.json"
        config = json.loads(path.read_text())
        config["script_config"]["interactive"] = True
        if name == "ask":
            config["script_config"]["timeout_seconds"] = 2  # nobody answers: the call times out
        path.write_text(json.dumps(config))
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.fixture
def server(asking: Path, tools_dir: Path, state: Path, tmp_path: Path) -> Iterator[RunningServer]:
    with http_server(asking, state, "--tools-dir", str(tools_dir)) as running:
        yield running


@pytest.fixture
def browser(server: RunningServer) -> Iterator[Browser]:
    with Browser(server) as client:
        assert client.login().status_code == 303
        assert client.open_page().status_code == 200
        yield client


class Call:
    """A dashboard call streamed, read event by event."""

    def __init__(self, browser: Browser, tool: str, arguments: dict[str, Any]) -> None:
        self.browser = browser
        self._context = browser.http.stream(
            "POST", "/dashboard/call", json={"tool": tool, "arguments": arguments},
            headers={"X-CSRF-Token": browser.csrf},
        )  # fmt: skip
        response = self._context.__enter__()
        assert response.status_code == 200
        self._chunks = response.iter_text()
        self._buffer = ""

    def next_event(self) -> tuple[str, Any]:
        while "\n\n" not in self._buffer:
            self._buffer += next(self._chunks)
        block, self._buffer = self._buffer.split("\n\n", 1)
        [event] = events(block + "\n\n")
        return event

    def until(self, name: str) -> Any:
        while True:
            event, data = self.next_event()
            if event == name:
                return data
            assert event in ("start", "log", "progress"), (event, data)

    def close(self) -> None:
        self._context.__exit__(None, None, None)


def answer(browser: Browser, question: str, body: Any, **headers: str) -> httpx2.Response:
    headers = {"X-CSRF-Token": browser.csrf, **headers}
    return browser.http.post(f"/dashboard/questions/{question}", json=body, headers=headers)


def test_a_question_is_a_form_on_the_stream_and_its_answer_goes_back(
    server: RunningServer, browser: Browser
) -> None:
    call = Call(browser, "ask", {"greeting": "Hi"})
    question = call.until("question")
    form = question["form"]
    assert len(question["id"]) >= 40 and f'data-question="{question["id"]}"' in form
    assert "Who are you? &lt;img src=x onerror=alert(1)&gt;" in form  # text, never markup
    assert "<img" not in form
    assert ">Your name <em>required</em>" in form  # the field's title
    assert 'value="30"' in form and 'value="&#34;green&#34;" selected' in form  # defaults filled in
    missing = answer(browser, question["id"], {"action": "accept", "content": {"age": 3}})
    assert missing.status_code == 400 and "'name' is a required property" in missing.json()["error"]
    content = {"name": "Ada", "age": 36, "colour": "red", "subscribe": False}
    accepted = answer(browser, question["id"], {"action": "accept", "content": content})
    assert accepted.status_code == 200, accepted.text
    result = call.until("result")
    call.close()
    assert result["isError"] is False
    assert result["structuredContent"]["greeting"] == "Hi, Ada"
    assert result["structuredContent"]["answer"] == {"action": "accept", "content": content}
    # Answered once: the same id again is no question.
    assert answer(browser, question["id"], {"action": "decline"}).status_code == 404
    record = json.loads(server.audit_log.read_text().splitlines()[-1])
    assert (record["transport"], record["tool"], record["success"]) == ("dashboard", "ask", True)


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_a_question_may_be_declined_or_cancelled(browser: Browser, action: str) -> None:
    call = Call(browser, "slow_ask", {})
    question = call.until("question")
    assert answer(browser, question["id"], {"action": action}).status_code == 200
    result = call.until("result")
    call.close()
    assert result["structuredContent"] == {"answer": {"action": action}}


def test_only_the_session_that_started_the_call_may_answer(server: RunningServer, browser: Browser) -> None:
    call = Call(browser, "slow_ask", {})
    question = call.until("question")
    with Browser(server) as other:
        assert other.login().status_code == 303 and other.open_page().status_code == 200
        stolen = answer(other, question["id"], {"action": "accept", "content": {"name": "Mallory"}})
        assert stolen.status_code == 403
        assert "another dashboard session" in stolen.json()["error"]
    without_csrf = answer(browser, question["id"], {"action": "decline"}, **{"X-CSRF-Token": ""})
    assert without_csrf.status_code == 403
    anonymous = httpx2.post(
        f"{server.base_url}/dashboard/questions/{question['id']}", json={"action": "decline"}
    )
    assert anonymous.status_code == 401
    # None of those answered it: the owner still can.
    assert (
        answer(browser, question["id"], {"action": "accept", "content": {"name": "Ada"}}).status_code == 200
    )
    assert call.until("result")["structuredContent"]["greeting"] == "Hello, Ada"
    call.close()
    denied = [record for record in server.audit_records() if "status" in record]
    assert any(record.get("status") == 403 and "another" in record.get("error", "") for record in denied)


def test_an_unknown_question_or_a_bad_answer_is_refused(browser: Browser) -> None:
    assert answer(browser, "no-such-question", {"action": "decline"}).status_code == 404
    call = Call(browser, "slow_ask", {})
    question = call.until("question")
    for body in ({"action": "maybe"}, [1], {"action": "accept", "content": {"name": {"nested": 1}}}):
        assert answer(browser, question["id"], body).status_code == 400, body
    assert answer(browser, question["id"], {"action": "cancel"}).status_code == 200
    call.until("result")
    call.close()


def test_a_question_nobody_answers_ends_with_its_calls_timeout(browser: Browser) -> None:
    call = Call(browser, "ask", {})
    question = call.until("question")
    result = call.until("result")  # `ask` has a 2 s timeout
    call.close()
    assert result["isError"] is True and "timed out" in result["content"][0]["text"]
    late = answer(browser, question["id"], {"action": "accept", "content": {"name": "Ada"}})
    assert late.status_code == 404 and "no longer open" in late.json()["error"]


def test_a_stopped_call_ends_its_question(server: RunningServer, browser: Browser) -> None:
    call = Call(browser, "slow_ask", {})
    question = call.until("question")
    call.close()  # Stop: the page drops the stream, as a closed tab does
    deadline = time.monotonic() + 20
    while '"error": "cancelled"' not in server.audit_log.read_text():  # the call is over, audited
        assert time.monotonic() < deadline
        time.sleep(0.05)
    late = answer(browser, question["id"], {"action": "accept", "content": {"name": "Ada"}})
    assert late.status_code == 404


def test_a_request_the_page_cannot_answer_gets_an_error_answer(browser: Browser) -> None:
    result = events(browser.call("sample", {}).text)
    names = [name for name, _ in result]
    assert "question" not in names
    text = result[-1][1]["content"][0]["text"]
    assert "the dashboard cannot answer sampling/createMessage" in json.loads(text)["error"]
