"""Bad protocol, property-based: hypothesis writes JSON-RPC frames (invalid JSON, wrong
`jsonrpc`, missing or odd ids, unknown methods, wrong params, notifications with ids)
and sends them raw, over stdio pipes and as HTTP posts with the bearer token. The
server answers each with the right error, or ignores it where JSON-RPC says to, and
never dies: after each batch a real call still works. Also oversize frames, JSON nested
10,000 deep, NaN, lone surrogates, and slow-loris HTTP clients."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2
import pydantic_core
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.conftest import child_env
from tests.faults.helpers import MARK_VAR, assert_no_leftovers, http_server, new_mark
from tests.faults.scripts import ECHO, write_script
from tests.faults.tally import BAD_INPUTS, count
from tests.serve.http_server import RunningServer
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

ANYTHING = """\
#!/bin/bash
# Tool: anything
# Description: Take any JSON value
# @param x: Anything (type: any)
echo "got it"
"""
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "fuzz", "version": "0"},
    },
}
JSONRPC_CODES = {-32700, -32600, -32601, -32602, -32603}
METHODS = [
    "ping", "tools/list", "tools/call", "prompts/list", "prompts/get", "resources/list", "resources/read",
    "resources/templates/list", "completion/complete", "logging/setLevel", "initialize",
    "notifications/initialized", "notifications/cancelled", "notifications/progress", "no/such/method", "",
]  # fmt: skip
# No shrinking (a failing frame may wait for a timeout per try) and no example database.
SETTINGS = settings(
    max_examples=int(os.environ.get("TOOLKILN_FUZZ_EXAMPLES", "80")),
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --- the frames ---------------------------------------------------------------------

_MISSING = object()
_json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
_json = st.recursive(
    _json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_ids = st.one_of(
    st.integers(-(2**70), 2**70),
    st.text(max_size=12),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
_params = st.one_of(
    _json,
    st.fixed_dictionaries(
        {},
        optional={
            "name": st.one_of(st.sampled_from(["anything", "echo", "nope"]), _json),
            "arguments": st.one_of(st.fixed_dictionaries({}, optional={"x": _json, "message": _json}), _json),
            "uri": st.one_of(st.text(max_size=30), _json),
            "level": st.one_of(st.sampled_from(["debug", "info", "bogus"]), _json),
            "_meta": st.one_of(st.dictionaries(st.text(max_size=10), _json, max_size=3), _json),
        },
    ),
)


@st.composite
def _messages(draw: st.DrawFn) -> dict[str, Any]:
    fields = {
        "jsonrpc": draw(
            st.one_of(st.just("2.0"), st.just("2.0"), st.sampled_from(["1.0", "2", 2.0, None, _MISSING]))
        ),
        "id": draw(st.one_of(_ids, st.just(_MISSING))),
        "method": draw(st.one_of(st.sampled_from(METHODS), st.text(max_size=15), _json, st.just(_MISSING))),
        "params": draw(st.one_of(_params, st.just(_MISSING))),
    }
    if fields["method"] is _MISSING and draw(st.booleans()):  # a response (with a method, it is neither)
        fields["result"] = draw(_json)
    return {key: value for key, value in fields.items() if value is not _MISSING}


def _not_json(data: bytes) -> bool:
    try:
        json.loads(data)
    except (ValueError, RecursionError):
        return True
    return False


FRAMES = st.one_of(
    _messages().map(lambda message: json.dumps(message).encode()),
    _json.map(lambda value: json.dumps(value).encode()),
    st.binary(max_size=60).filter(lambda data: b"\n" not in data and data.strip() and _not_json(data)),
    st.text(max_size=60)
    .map(str.encode)
    .filter(lambda data: b"\n" not in data and data.strip() and _not_json(data)),
)


def _expects_answer(frame: bytes) -> Any:
    """The id a frame must be answered with once; None for a frame that gets no answer of
    its own (a notification, a response); "parse" for what is not strict JSON (answered
    with id null). Bytes that are not UTF-8 are read as U+FFFD, as the server reads them."""
    try:
        message = pydantic_core.from_json(frame.decode(errors="replace"), allow_inf_nan=False)
    except ValueError:
        return "parse"
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return None
    if "result" in message or "error" in message:  # a response, however odd: never answered
        return None
    request_id = message["id"]
    valid = isinstance(request_id, str | int) and not isinstance(request_id, bool)
    return request_id if valid else None


def _check_answer(answer: dict[str, Any]) -> None:
    assert answer.get("jsonrpc") == "2.0", answer
    assert "id" in answer, answer
    assert ("result" in answer) != ("error" in answer), answer
    if "error" in answer:
        assert isinstance(answer["error"].get("code"), int), answer
        assert isinstance(answer["error"].get("message"), str), answer


# --- stdio, raw pipes -------------------------------------------------------------------


class RawStdio:
    """`toolkiln serve --stdio` on plain pipes: frames in, lines out."""

    def __init__(self, config_dir: Path, mark: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "toolkiln", "serve", "--config-dir", str(config_dir), "--tools-dir", "x"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env={**child_env(), MARK_VAR: mark},
        )  # fmt: skip
        self.buffer = b""
        self.probes = 0

    def send(self, frame: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(frame + b"\n")
        self.process.stdin.flush()

    def read(self, seconds: float = 10) -> dict[str, Any]:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + seconds
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            assert left > 0, "no answer in time"
            if select.select([fd], [], [], left)[0]:
                chunk = os.read(fd, 1 << 20)
                assert chunk, f"the server closed its stdout (exit {self.process.poll()})"
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        answer: dict[str, Any] = json.loads(line)
        return answer

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.probes += 1
        request_id = f"probe-{self.probes}"
        self.send(
            json.dumps(
                {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}
            ).encode()
        )
        while True:
            answer = self.read()
            if answer.get("id") == request_id:
                return answer

    def exchange(self, frame: bytes) -> list[dict[str, Any]]:
        """Send `frame`, then a ping; every answer until the ping's, and until the frame's
        own if it needs one (a request may be answered after the ping)."""
        self.send(frame)
        self.probes += 1
        probe = f"probe-{self.probes}"
        self.send(json.dumps({"jsonrpc": "2.0", "id": probe, "method": "ping"}).encode())
        answers: list[dict[str, Any]] = []
        probed, needed = False, 0 if _expects_answer(frame) is None else 1
        while not probed or len(answers) < needed:
            answer = self.read()
            if answer.get("id") == probe:
                probed = True
            else:
                answers.append(answer)
        return answers


@pytest.fixture(scope="module")
def config_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("protocol")
    write_script(root / "tools" / "echo.sh", ECHO)
    write_script(root / "tools" / "anything.sh", ANYTHING)
    assert not discover_tools(root / "tools", root / "config").errors
    build_catalog(root / "config", root / "tools")
    return root / "config"


@pytest.fixture(scope="module")
def raw_stdio(config_dir: Path) -> Iterator[RawStdio]:
    mark = new_mark()
    raw = RawStdio(config_dir, mark)
    raw.send(json.dumps(INITIALIZE).encode())
    assert raw.read()["result"]["serverInfo"]["name"] == "toolkiln"
    raw.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    yield raw
    _works_over_stdio(raw)
    assert raw.process.stdin is not None and raw.process.stdout is not None
    raw.process.stdin.close()
    assert raw.process.wait(30) == 0
    raw.process.stdout.close()
    assert_no_leftovers(mark)


def _works_over_stdio(raw: RawStdio) -> None:
    answer = raw.request("tools/call", {"name": "echo", "arguments": {"message": "still here"}})
    assert answer["result"]["content"][0]["text"] == "still here", answer


@SETTINGS
@given(frame=FRAMES)
def test_fuzzed_frames_over_stdio(raw_stdio: RawStdio, frame: bytes) -> None:
    answers = raw_stdio.exchange(frame)
    for answer in answers:
        _check_answer(answer)
    expected = _expects_answer(frame)
    if expected == "parse":
        assert [(a["id"], a["error"]["code"]) for a in answers] == [(None, -32700)], answers
    elif expected is not None:
        assert [a["id"] for a in answers] == [expected], (frame, answers)
        if "error" in answers[0]:
            assert answers[0]["error"]["code"] in JSONRPC_CODES, answers
    else:  # nothing of its own; at most the answer for a request whose id could not be read
        assert all(a["id"] is None and a["error"]["code"] == -32600 for a in answers), (frame, answers)
    assert raw_stdio.process.poll() is None
    count(BAD_INPUTS)


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (b"{" + b'"a": [' * 10_000, -32700),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": '
            + b"[" * 10_000
            + b"]" * 10_000
            + b"}",
            -32700,
        ),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"s": "\\ud800"}}', -32700),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "\xff\xfe"}', None),  # read as U+FFFD: fine
        (b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', -32600),
        (b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', -32600),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": [1, 2]}', -32602),
        (b'{"jsonrpc": "1.0", "id": 1, "method": "ping"}', -32600),
        (b"[]", -32600),
        (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', -32600),
        (b'{"jsonrpc": "2.0", "id": 7, "method": "notifications/initialized"}', -32601),
    ],
)
def test_chosen_bad_frames_over_stdio(raw_stdio: RawStdio, frame: bytes, code: int | None) -> None:
    answers = raw_stdio.exchange(frame)
    assert len(answers) == 1, answers
    if code is None:
        assert "result" in answers[0]
    else:
        assert answers[0]["error"]["code"] == code, answers
    count(BAD_INPUTS)


def test_nan_and_infinity_arguments_over_stdio(raw_stdio: RawStdio) -> None:
    for literal in (b"NaN", b"Infinity", b"-Infinity", b"[1, NaN]"):
        frame = b'{"jsonrpc": "2.0", "id": "nan", "method": "tools/call", '
        [answer] = raw_stdio.exchange(
            frame + b'"params": {"name": "anything", "arguments": {"x": ' + literal + b"}}}"
        )
        assert answer["result"]["isError"] is True, answer
        assert "is not a JSON number" in answer["result"]["content"][0]["text"]
        count(BAD_INPUTS)


def test_oversize_frames_over_stdio(raw_stdio: RawStdio) -> None:
    # 20 MB of invalid JSON on one line, then a 20 MB argument: answered, and the server goes on.
    [parse_error] = raw_stdio.exchange(b"{" + b"x" * 20_000_000)
    assert parse_error["error"]["code"] == -32700
    big = json.dumps({"jsonrpc": "2.0", "id": "big", "method": "tools/call",
                      "params": {"name": "echo", "arguments": {"message": "m" * 20_000_000}}})  # fmt: skip
    [answer] = raw_stdio.exchange(big.encode())
    assert answer["result"]["isError"] is True
    assert "too big" in answer["result"]["content"][0]["text"]
    _works_over_stdio(raw_stdio)
    count(BAD_INPUTS, 2)


# --- HTTP, raw posts --------------------------------------------------------------------


@pytest.fixture(scope="module")
def http(config_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    mark = new_mark()
    with http_server(
        config_dir, tmp_path_factory.mktemp("state"), "--max-body", "1048576", **{MARK_VAR: mark}
    ) as running:
        yield running
        _works_over_http(running)
    assert_no_leftovers(mark)


def _works_over_http(server: RunningServer) -> None:
    answer = server.rpc("tools/call", {"name": "echo", "arguments": {"message": "still here"}}).json()
    assert answer["result"]["content"][0]["text"] == "still here"
    assert httpx2.get(f"{server.base_url}/health").json()["status"] == "ok"


def _post(server: RunningServer, path: str, body: bytes, **headers: str) -> httpx2.Response:
    return httpx2.post(
        f"{server.base_url}{path}",
        content=body,
        headers={**server.auth(), "Content-Type": "application/json", **headers},
        timeout=30,
    )


@SETTINGS
@given(frame=FRAMES)
def test_fuzzed_frames_over_rpc(http: RunningServer, frame: bytes) -> None:
    response = _post(http, "/rpc", frame)
    assert response.status_code in (200, 202, 400), (frame, response.status_code, response.text)
    expected = _expects_answer(frame)
    if response.status_code == 202:  # a notification: no answer
        assert response.content == b""
    else:
        answer = response.json()
        _check_answer(answer)
        if expected == "parse":
            assert answer["error"]["code"] == -32700
        elif expected is not None and answer["id"] is not None:
            assert answer["id"] == expected
        if "error" in answer:
            assert answer["error"]["code"] in JSONRPC_CODES
    count(BAD_INPUTS)


@pytest.fixture(scope="module")
def mcp_session(http: RunningServer) -> dict[str, str]:
    response = _post(
        http, "/mcp", json.dumps(INITIALIZE).encode(), Accept="application/json, text/event-stream"
    )
    assert response.status_code == 200, response.text
    session = {"Mcp-Session-Id": response.headers["mcp-session-id"], "Mcp-Protocol-Version": "2025-11-25"}
    notified = _post(
        http, "/mcp", b'{"jsonrpc": "2.0", "method": "notifications/initialized"}',
        Accept="application/json, text/event-stream", **session,
    )  # fmt: skip
    assert notified.status_code == 202
    return session


def _answers(response: httpx2.Response) -> list[dict[str, Any]]:
    """The JSON-RPC messages of a Streamable HTTP response (JSON, or SSE events)."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return [
            json.loads(line[len("data:") :])
            for line in response.text.splitlines()
            if line.startswith("data:") and line[len("data:") :].strip()
        ]
    if response.content:
        body = response.json()
        return body if isinstance(body, list) else [body]
    return []


@SETTINGS
@given(frame=FRAMES, with_session=st.booleans())
def test_fuzzed_frames_over_mcp(
    http: RunningServer, mcp_session: dict[str, str], frame: bytes, with_session: bool
) -> None:
    headers = {"Accept": "application/json, text/event-stream", **(mcp_session if with_session else {})}
    response = _post(http, "/mcp", frame, **headers)
    assert response.status_code < 500, (frame, response.status_code, response.text)
    for answer in _answers(response):
        _check_answer(answer)
    count(BAD_INPUTS)


@pytest.mark.parametrize("path", ["/rpc", "/mcp"])
def test_deep_nesting_nan_and_surrogates_over_http(
    http: RunningServer, mcp_session: dict[str, str], path: str
) -> None:
    call = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", '
    call += b'"params": {"name": "anything", "arguments": {"x": '
    bodies = [call + b"[" * 10_000 + b"]" * 10_000 + b"}}}", call + b"NaN}}}", call + b'"\\ud800"}}}']
    headers = {"Accept": "application/json, text/event-stream", **mcp_session}
    for body in bodies:
        response = _post(http, path, body, **headers)
        assert response.status_code < 500, response.text
        answers = _answers(response)
        assert len(answers) == 1, response.text
        # A parse error, or for NaN (which the SDK's parser takes) a tool error.
        assert answers[0].get("error", {}).get("code") == -32700 or answers[0]["result"]["isError"] is True
        count(BAD_INPUTS)


@pytest.mark.parametrize("path", ["/rpc", "/mcp"])
def test_oversize_bodies_over_http(http: RunningServer, path: str) -> None:
    for size in (2_000_000, 50_000_000):
        body = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "' + b"x" * size + b'"}}'
        try:
            response = _post(http, path, body, Accept="application/json, text/event-stream")
            assert response.status_code == 413
        except httpx2.TransportError:  # the server may answer 413 and close before all is sent
            pass
        count(BAD_INPUTS)
    # Chunked, with no Content-Length to refuse up front: cut off as it streams.
    chunks = (b"x" * 65536 for _ in range(64))
    try:
        response = httpx2.post(
            f"{http.base_url}{path}",
            content=chunks,
            headers={**http.auth(), "Content-Type": "application/json"},
            timeout=30,
        )
        assert response.status_code == 413
    except httpx2.TransportError:
        pass
    count(BAD_INPUTS)
    _works_over_http(http)


def test_slow_loris_clients_do_not_starve_the_others(http: RunningServer) -> None:
    """50 connections that dribble their headers or bodies a byte at a time: the server
    answers everyone else meanwhile, and lets go of them when they leave."""
    address = urlsplit(http.base_url)
    pid = http.process.pid
    fds_before = len(os.listdir(f"/proc/{pid}/fd"))
    slow: list[socket.socket] = []
    try:
        for index in range(60):
            path = ("/rpc", "/mcp")[index % 2]
            head = (
                f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {http.token}\r\n"
                "Accept: application/json, text/event-stream\r\n"
                "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
            ).encode()
            connection = socket.create_connection((address.hostname, address.port))
            # A third never finish their headers; the others promise a body and never send it.
            connection.sendall(head[:20] if index % 3 == 0 else head + b'{"jsonrpc"')
            slow.append(connection)
        for _ in range(10):
            for connection in slow:
                with_error = connection.send(b"X")  # a byte more, forever
                assert with_error == 1
            started = time.monotonic()
            _works_over_http(http)
            assert time.monotonic() - started < 5
            time.sleep(0.1)
    finally:
        for connection in slow:
            connection.close()
    count(BAD_INPUTS, len(slow))
    deadline = time.monotonic() + 10
    while len(os.listdir(f"/proc/{pid}/fd")) > fds_before + 5:
        assert time.monotonic() < deadline, "the server kept the connections of clients that left"
        time.sleep(0.1)
    _works_over_http(http)
    # A client gone mid-request is no error of the server's. (The SDK still logs one, with a
    # traceback, for each such /mcp request: its own noise, not an escaped exception.)
    log = http.stderr()
    assert "Exception in ASGI application" not in log, log[-3000:]
