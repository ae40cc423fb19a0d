"""Two `toolkiln serve --http --stateless` replicas behind nginx, the deployment of the
README's "Running several replicas behind a load balancer".

The replicas share one config folder and one token file; nginx balances them round
robin. Six clients call at once (the SDK's client in both eras, and plain JSON-RPC
posts to /rpc); one replica is SIGKILLed while calls run on it. Every call is then
accounted for: answered, or reported to its caller as failed, never lost. A failed call
of a tool marked idempotent is tried again by its client; nginx itself retries a POST
only when no byte of it reached a replica (`proxy_next_upstream error timeout`, without
`non_idempotent`), so no other call can run twice.

Also: the retry that brings a 2026-07-28 client's answers, sent to another replica. With
the replicas' shared secret (`TOOLKILN_STATE_SECRET_FILE`) a confirmation is answered on
any replica; a script waiting for its answers waits in one process, and another replica
says so. Without it, another replica cannot open the requestState, and says why. A 2025
client gets no questions at all.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp.types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.conftest import MakeTool, child_env
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

NGINX = shutil.which("nginx") or next(
    (path for path in ("/usr/sbin/nginx", "/sbin/nginx") if os.access(path, os.X_OK)), None
)
needs_nginx = pytest.mark.skipif(
    NGINX is None,
    reason="nginx is not installed (apt-get install -y --no-install-recommends nginx; .ci/run does it)",
)

PUBLIC_HOST = "toolkiln.test"  # the name clients use for the load balancer
STARTUP_SECONDS = 30
CALL_SECONDS = 30  # a call with no answer by then is lost
RETRIES = 3  # attempts of an idempotent call
SPREAD = 10  # calls each replica answers before the kill
AFTER_KILL = 5  # calls each client starts (and sees answered) after the kill

# Both tools say which replica ran them (the server's port is in every script's
# environment) and, while they run, leave a file in $RUNNING that says so too.
WHERE = """\
#!/bin/bash
# Tool: where
# Description: Say which replica runs this call
# @param ticket: The caller's name for this call (type: string, required: true)
running="$RUNNING/$TOOLKILN_SERVER_PORT.where.$$"
touch "$running"
sleep 0.3
rm -f "$running"
printf '{"ticket": "%s", "port": %s}\\n' "$ticket" "$TOOLKILN_SERVER_PORT"
"""
RECORD = """\
#!/bin/bash
# Tool: record
# Description: Append the ticket to the ledger (running it twice would write it twice)
# @param ticket: The caller's name for this call (type: string, required: true)
running="$RUNNING/$TOOLKILN_SERVER_PORT.record.$$"
touch "$running"
sleep 0.3
echo "$ticket $TOOLKILN_SERVER_PORT" >> "$LEDGER"
rm -f "$running"
printf '{"ticket": "%s", "port": %s}\\n' "$ticket" "$TOOLKILN_SERVER_PORT"
"""
TOOLS = ("where", "record")
ASK = """\
#!/usr/bin/env python3
# Tool: ask
# Description: Ask the user's name, then say which replica asked
import json, os, sys
sys.stdin.readline()
print("ELICIT " + json.dumps({"message": "Your name?", "requestedSchema": {
    "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}),
    file=sys.stderr, flush=True)
answer = json.loads(sys.stdin.readline())
print(json.dumps({"answer": answer, "port": int(os.environ["TOOLKILN_SERVER_PORT"])}))
"""
CAREFUL = """\
#!/bin/bash
# Tool: careful
# Description: Run only once the user has said yes
echo "done on $TOOLKILN_SERVER_PORT"
"""


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("where.sh", WHERE)
    make_tool("record.sh", RECORD)
    make_tool("ask.py", ASK)
    make_tool("careful.sh", CAREFUL)
    assert not discover_tools(tools_dir, config_dir).errors
    # The hints are the user's, in the per-tool configs; clients read them from tools/list.
    _set_user_keys(config_dir / "tools" / "where.json", read_only=True, idempotent=True)
    _set_user_keys(config_dir / "tools" / "record.json", read_only=False, idempotent=False)
    _set_user_keys(config_dir / "tools" / "ask.json", interactive=True)
    _set_user_keys(config_dir / "tools" / "careful.json", requires_confirmation=True)
    build_catalog(config_dir, tools_dir)
    return config_dir


def _set_user_keys(path: Path, **keys: bool) -> None:
    config = json.loads(path.read_text())
    config["script_config"].update(keys)
    path.write_text(json.dumps(config, indent=2) + "\n")


# --- the replicas and the load balancer ---------------------------------------------


@dataclass
class Replica:
    process: subprocess.Popen[bytes]
    port: int
    audit_log: Path

    def audited_calls(self) -> list[dict[str, Any]]:
        lines = self.audit_log.read_text().splitlines() if self.audit_log.exists() else []
        return [record for line in lines if (record := json.loads(line))["event"] == "tools/call"]


@contextlib.contextmanager
def replica(config_dir: Path, token_file: Path, folder: Path, *options: str, **env: str) -> Iterator[Replica]:
    """One `serve --http --stateless` on a free loopback port (and `options`). Its audit
    log and stderr are its own, in `folder` (several processes must not rotate one log file)."""
    folder.mkdir()
    audit_log = folder / "audit.jsonl"
    command = [
        sys.executable, "-m", "toolkiln", "serve", "--http", "--stateless", "--port", "0",
        "--config-dir", str(config_dir), "--token-file", str(token_file),
        "--audit-log", str(audit_log), "--allow-host", PUBLIC_HOST, "--forwarded-allow-ips", "127.0.0.1",
        *options,
    ]  # fmt: skip
    with (folder / "stderr").open("wb") as stderr:
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=stderr, env={**child_env(), **env}
        )
    try:
        # Replicas that share a token file share its folder's discovery file: each
        # start writes its own, so wait for this one's.
        server_file = token_file.parent / "server.json"
        info = _wait_for(lambda: _server_file(server_file, process.pid), process, folder.name)
        port = int(info["url"].removesuffix("/mcp").rsplit(":", 1)[1])
        yield Replica(process, port, audit_log)
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _server_file(path: Path, pid: int) -> dict[str, Any] | None:
    with contextlib.suppress(FileNotFoundError, json.JSONDecodeError):
        info: dict[str, Any] = json.loads(path.read_text())
        return info if info.get("pid") == pid else None
    return None


def _wait_for(ready: Callable[[], Any], process: subprocess.Popen[bytes], name: str) -> Any:
    deadline = time.monotonic() + STARTUP_SECONDS
    while not (answer := ready()):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            process.wait()
            raise AssertionError(f"{name} did not start; see its stderr in the test's tmp_path")
        time.sleep(0.05)
    return answer


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# The README's configuration inside a whole nginx.conf that writes only under @prefix@.
NGINX_CONF = """\
@user@worker_processes 1;
pid @prefix@/nginx.pid;
error_log stderr notice;
events { worker_connections 512; }
http {
  log_format upstreams '$request_method $uri $status upstream=$upstream_addr tried=$upstream_status';
  access_log @prefix@/access.log upstreams;
  client_body_temp_path @prefix@/client_body;
  proxy_temp_path @prefix@/proxy;
  fastcgi_temp_path @prefix@/fastcgi;
  uwsgi_temp_path @prefix@/uwsgi;
  scgi_temp_path @prefix@/scgi;
  upstream toolkiln {
@servers@
  }
  server {
    listen 127.0.0.1:@port@;
    server_name @host@;
    client_max_body_size 4m;
    location / {
      proxy_pass http://toolkiln;
      proxy_http_version 1.1;
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_buffering off;
      proxy_read_timeout 300s;
      proxy_connect_timeout 2s;
      proxy_next_upstream error timeout;
      proxy_next_upstream_tries 2;
    }
  }
}
"""


def nginx_conf(prefix: Path, port: int, upstreams: list[int]) -> str:
    """NGINX_CONF for these ports, with a `fail_timeout` of 1 s (10 s in the README) so
    that within the test nginx tries the dead replica again, is refused, and moves the
    call on."""
    values = {
        # As root, nginx's workers would switch to www-data, which may not enter tmp_path.
        "user": "user root;\n" if os.geteuid() == 0 else "",
        "prefix": str(prefix),
        "servers": "\n".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=1s;" for p in upstreams),
        "port": str(port),
        "host": PUBLIC_HOST,
    }
    conf = NGINX_CONF
    for name, value in values.items():
        conf = conf.replace(f"@{name}@", value)
    return conf


@contextlib.contextmanager
def nginx(prefix: Path, upstreams: list[int]) -> Iterator[str]:
    """nginx in the foreground on a free loopback port; yields its base URL."""
    assert NGINX is not None
    prefix.mkdir()
    port = free_port()
    conf = prefix / "nginx.conf"
    conf.write_text(nginx_conf(prefix, port, upstreams))
    with (prefix / "stderr").open("wb") as stderr:
        process = subprocess.Popen(
            [NGINX, "-c", str(conf), "-p", str(prefix), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_for(lambda: _answers(f"{base_url}/health"), process, "nginx")
        yield base_url
    finally:
        process.send_signal(signal.SIGQUIT)  # graceful: finish what is in flight
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _answers(url: str) -> bool:
    try:
        return httpx2.get(url, headers={"Host": PUBLIC_HOST}, timeout=1).status_code == 200
    except httpx2.TransportError:
        return False


# --- the clients --------------------------------------------------------------------


@dataclass
class Call:
    """One call a client made, and what became of it."""

    client: str
    ticket: str  # what it sent, so the ledger can tell it apart
    tool: str
    idempotent: bool
    started: float
    attempts: int = 0
    port: int | None = None  # the replica that answered
    failure: str | None = None  # what the caller was told instead
    lost: bool = False  # neither: no answer within CALL_SECONDS
    ended: float | None = None


Attempt = Callable[[str, str], Awaitable[int]]  # (tool, ticket) -> the port of the replica that ran it
Connection = contextlib.AbstractAsyncContextManager[tuple[Attempt, dict[str, bool]]]


@dataclass
class Run:
    base_url: str
    token: str
    calls: list[Call] = field(default_factory=list)
    stopping: anyio.Event = field(default_factory=anyio.Event)

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", "Host": PUBLIC_HOST}

    async def drive(self, client: str, connect: Callable[[], Connection]) -> None:
        """Call the tools in turn until told to stop. A call that fails for want of an
        answer is tried again if its tool is idempotent (as tools/list says), and
        reported otherwise. A connection that dies with its call is opened again."""
        count = 0
        call: Call | None = None
        while call is not None or not self.stopping.is_set():
            try:
                async with connect() as (attempt, idempotent):
                    while call is not None or not self.stopping.is_set():
                        if call is None:
                            count += 1
                            tool = TOOLS[count % len(TOOLS)]
                            call = Call(client, f"{client}-{count}", tool, idempotent[tool], time.monotonic())
                            self.calls.append(call)
                        await _complete(call, attempt)
                        call = None
            except* httpx2.TransportError as crash:  # see sdk_client
                assert call is not None
                call.failure = f"the client's connection died: {crash.exceptions[0]!r}"
                call.ended = time.monotonic()
                if not call.idempotent or call.attempts >= RETRIES:
                    call = None

    @contextlib.asynccontextmanager
    async def sdk_client(self, mode: str) -> AsyncIterator[tuple[Attempt, dict[str, bool]]]:
        """The SDK's client. When a replica dies between the headers and the body of a JSON
        response, mcp 2.3.0's client does not fail the one call: its whole connection
        ends, with httpx2.RemoteProtocolError (`drive` opens another)."""
        async with (
            httpx2.AsyncClient(headers=self.headers(), timeout=CALL_SECONDS) as http,
            Client(streamable_http_client(f"{self.base_url}/mcp", http_client=http), mode=mode) as session,
        ):

            async def attempt(tool: str, ticket: str) -> int:
                try:
                    result = await session.call_tool(tool, {"ticket": ticket})
                except MCPError as error:  # 502 from nginx, or the stream cut off mid-call
                    raise CallFailed(f"{error.error.code}: {error.error.message}") from None
                assert not result.is_error, result
                assert result.structured_content is not None
                assert result.structured_content["ticket"] == ticket
                return int(result.structured_content["port"])

            tools = (await session.list_tools()).tools
            yield attempt, {t.name: bool(t.annotations and t.annotations.idempotent_hint) for t in tools}

    @contextlib.asynccontextmanager
    async def rpc_client(self) -> AsyncIterator[tuple[Attempt, dict[str, bool]]]:
        """Plain JSON-RPC posts to /rpc."""
        async with httpx2.AsyncClient(headers=self.headers(), timeout=CALL_SECONDS) as http:

            async def post(method: str, params: dict[str, Any]) -> Any:
                body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
                try:
                    response = await http.post(f"{self.base_url}/rpc", json=body)
                except httpx2.TransportError as error:
                    raise CallFailed(f"{type(error).__name__}: {error}") from None
                if response.status_code != 200:
                    raise CallFailed(f"HTTP {response.status_code}")
                return response.json()["result"]

            async def attempt(tool: str, ticket: str) -> int:
                result = await post("tools/call", {"name": tool, "arguments": {"ticket": ticket}})
                assert not result.get("isError"), result
                assert result["structuredContent"]["ticket"] == ticket
                return int(result["structuredContent"]["port"])

            tools = (await post("tools/list", {}))["tools"]
            yield attempt, {t["name"]: bool(t.get("annotations", {}).get("idempotentHint")) for t in tools}


async def _complete(call: Call, attempt: Attempt) -> None:
    while True:
        call.attempts += 1
        try:
            with anyio.fail_after(CALL_SECONDS):
                call.port = await attempt(call.tool, call.ticket)
            call.failure = None
            break
        except TimeoutError:
            call.lost = True
            break
        except CallFailed as error:
            call.failure = str(error)
            if not call.idempotent or call.attempts >= RETRIES:
                break
            await anyio.sleep(0.05)
    call.ended = time.monotonic()


class CallFailed(Exception):
    """A call the client was told had failed (as opposed to one with no answer)."""


async def wait_until(condition: Callable[[], bool], what: str, seconds: float = 60) -> None:
    try:
        with anyio.fail_after(seconds):
            while not condition():
                await anyio.sleep(0.01)
    except TimeoutError:
        raise AssertionError(f"waited {seconds} s for {what}") from None


# --- the test -----------------------------------------------------------------------


@needs_nginx
@pytest.mark.anyio
async def test_calls_survive_a_replica_killed_mid_run(served: Path, tmp_path: Path) -> None:
    running, ledger, token_file = tmp_path / "running", tmp_path / "ledger", tmp_path / "state" / "token"
    running.mkdir()
    env = {"RUNNING": str(running), "LEDGER": str(ledger)}
    clients = [f"{kind}{n}" for kind in ("legacy", "auto", "rpc") for n in (1, 2)]
    with (
        replica(served, token_file, tmp_path / "replica-a", **env) as victim,
        replica(served, token_file, tmp_path / "replica-b", **env) as survivor,
        nginx(tmp_path / "nginx", [victim.port, survivor.port]) as base_url,
    ):
        run = Run(base_url, token_file.read_text().strip())

        def answered_by(replica: Replica) -> int:
            return answered_by_port(run.calls, replica.port)

        def running_on_victim() -> set[str]:
            return {name.split(".")[1] for name in os.listdir(running) if name.startswith(f"{victim.port}.")}

        def moved_by_nginx() -> list[str]:
            """Requests the dead replica refused, that nginx passed to the other one."""
            log = (tmp_path / "nginx" / "access.log").read_text().splitlines()
            return [line for line in log if f"upstream=127.0.0.1:{victim.port}, " in line]

        def done_after_kill(client: str) -> int:
            return sum(1 for c in run.calls if c.client == client and c.started >= killed_at and c.ended)

        async with anyio.create_task_group() as group:
            for client in clients:
                kind = client[:-1]
                connect = run.rpc_client if kind == "rpc" else functools.partial(run.sdk_client, kind)
                group.start_soon(run.drive, client, connect)
            # Round robin: both replicas answer. Then the kill, while both tools run on the victim.
            await wait_until(
                lambda: (
                    min(answered_by(victim), answered_by(survivor)) >= SPREAD
                    and running_on_victim() == set(TOOLS)
                ),
                "calls answered by both replicas, and both tools running on the victim",
            )
            victim.process.send_signal(signal.SIGKILL)
            await anyio.to_thread.run_sync(victim.process.wait)  # its port is closed now
            killed_at = time.monotonic()
            spread = {"victim": answered_by(victim), "survivor": answered_by(survivor)}
            await wait_until(
                lambda: min(map(done_after_kill, clients)) >= AFTER_KILL and len(moved_by_nginx()) >= 1,
                "calls of every client after the kill, and one of them refused by the dead replica",
            )
            run.stopping.set()

        # The victim's tools do not outlive it: its spawner kills them when the server dies
        # (docs/security.md, "No process outlives its call"). Their files stay behind.
        victims = _pids(running)
        await wait_until(lambda: not any(map(_alive, victims)), "the victim's tools to end", seconds=10)
        moved = moved_by_nginx()
        audited = {"victim": victim.audited_calls(), "survivor": survivor.audited_calls()}

    calls = run.calls
    answered = [c for c in calls if c.port is not None]
    failed = [c for c in calls if c.failure is not None]
    lost = [c for c in calls if c.lost]
    retried = [c for c in answered if c.attempts > 1]
    after = [c for c in calls if c.started >= killed_at]
    print(
        f"\nreplicas behind nginx: {len(calls)} calls from {len(clients)} clients; before the kill "
        f"the victim answered {spread['victim']} and the survivor {spread['survivor']}; "
        f"{len(after)} calls started after the kill, all answered ({len(moved)} moved on by nginx "
        f"when the dead replica refused them); {len(retried)} idempotent calls answered on a "
        f"retry; {len(failed)} failed and reported ({sorted({c.failure for c in failed})}); "
        f"{len(lost)} lost; answered in all by the victim {answered_by_port(calls, victim.port)}, "
        f"by the survivor {answered_by_port(calls, survivor.port)}"
    )

    # Every call is accounted for: answered or reported as failed, none left hanging.
    assert lost == []
    assert len(answered) + len(failed) == len(calls)
    # Calls in flight on the victim: the idempotent ones were tried again and answered by
    # the survivor; the others failed, and their callers were told.
    assert retried and all(c.idempotent and c.port == survivor.port for c in retried)
    assert failed and all(not c.idempotent and c.started < killed_at for c in failed), failed
    # After the kill every new call is answered by the survivor at the first attempt,
    # those nginx first sent to the dead replica included.
    assert all(c.port == survivor.port and c.attempts == 1 for c in after), [
        c for c in after if c.port != survivor.port or c.attempts != 1
    ]
    assert all(" 200 " in line for line in moved), moved

    # Nothing ran twice: a POST that reached a replica is never retried by nginx. A
    # failed call may still have run (on the victim, which died before it answered):
    # its caller was told it failed, not that it did not happen.
    entries = [line.split() for line in ledger.read_text().splitlines()]
    runs = Counter(ticket for ticket, _ in entries)
    assert max(runs.values()) == 1, runs.most_common(3)
    ran_on = dict(entries)
    assert all(ran_on[c.ticket] == str(c.port) for c in answered if c.tool == "record")
    assert all(ran_on.get(c.ticket, str(victim.port)) == str(victim.port) for c in failed)

    # Each replica's audit log has the calls it answered (the victim's may have more:
    # those it finished but could not deliver).
    assert sum(r["success"] for r in audited["survivor"]) == answered_by_port(calls, survivor.port)
    assert sum(r["success"] for r in audited["victim"]) >= answered_by_port(calls, victim.port)


def _pids(running: Path) -> list[int]:
    return [int(name.rpartition(".")[2]) for name in os.listdir(running)]


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie has ended: its parent has not reaped it yet)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def answered_by_port(calls: list[Call], port: int) -> int:
    return sum(1 for c in calls if c.port == port)


# --- interactive scripts and replicas -------------------------------------------------


class RetryElsewhere(httpx2.AsyncHTTPTransport):
    """What a load balancer may do: send a 2026-07-28 client's retry, the request that
    brings the answers (`inputResponses`), to another replica."""

    def __init__(self, port: int) -> None:
        super().__init__()
        self.port = port

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if b'"inputResponses"' in request.content:
            request.url = request.url.copy_with(port=self.port)
        return await super().handle_async_request(request)


async def elicit(context: Any, params: types.ElicitRequestFormParams) -> types.ElicitResult:
    """Say yes to a confirmation, and Ada to anything else."""
    confirming = "confirm" in params.requested_schema["properties"]
    return types.ElicitResult(action="accept", content={"confirm": True} if confirming else {"name": "Ada"})


def write_secret(path: Path, secret: str | None = None) -> Path:
    """A `state.secret_file`, private as it must be."""
    path.write_text((secret or secrets.token_hex(32)) + "\n")
    path.chmod(0o600)
    return path


@pytest.mark.anyio
@pytest.mark.parametrize("shared", [False, True], ids=["own-keys", "shared-secret"])
async def test_a_retry_on_another_replica(served: Path, tmp_path: Path, shared: bool) -> None:
    """A 2026-07-28 client's answers (to a script's question, or to a confirmation) come
    in a retry that a load balancer may send to another replica. Without a shared
    secret, another replica cannot open the `requestState` (each process seals with a key
    of its own) and says why. With `TOOLKILN_STATE_SECRET_FILE`, every replica opens it:
    a confirmation is answered on any replica; a script that waits for its answers runs
    in one process, and another replica says so. A 2025 client gets no questions at all
    from stateless HTTP; its script is told why."""
    token_file = tmp_path / "state" / "token"
    env = {"TOOLKILN_STATE_SECRET_FILE": str(write_secret(tmp_path / "secret"))} if shared else {}
    with (
        replica(served, token_file, tmp_path / "replica-a", **env) as first,
        replica(served, token_file, tmp_path / "replica-b", **env) as second,
    ):
        headers = {"Authorization": f"Bearer {token_file.read_text().strip()}"}

        async def ask(
            mode: str, tool: str, transport: httpx2.AsyncHTTPTransport | None = None, **arguments: Any
        ) -> Any:
            """The call's result, or the error it ended with."""
            url = f"http://127.0.0.1:{first.port}/mcp"
            async with (
                httpx2.AsyncClient(headers=headers, timeout=CALL_SECONDS, transport=transport) as http,
                Client(
                    streamable_http_client(url, http_client=http), mode=mode, elicitation_callback=elicit
                ) as c,
            ):
                try:
                    return await c.call_tool(tool, arguments)
                except MCPError as error:
                    return error

        elsewhere = RetryElsewhere(second.port)
        same, moved, legacy = (
            await ask("auto", "ask"),
            await ask("auto", "ask", elsewhere),
            await ask("legacy", "ask"),
        )
        confirmed, moved_confirmation = await ask("auto", "careful"), await ask("auto", "careful", elsewhere)
        # A 2025 client cannot be asked: it confirms with an argument.
        unconfirmed, confirmed_by_argument = (
            await ask("legacy", "careful"),
            await ask("legacy", "careful", confirm=True),
        )

    assert same.structured_content == {
        "answer": {"action": "accept", "content": {"name": "Ada"}},
        "port": first.port,
    }
    assert confirmed.content[0].text == f"done on {first.port}"
    assert unconfirmed.is_error and "confirm" in unconfirmed.content[0].text
    assert confirmed_by_argument.content[0].text == f"done on {first.port}"
    assert legacy.structured_content == {
        "answer": {"error": "the server cannot send elicitation/create to this client (stateless HTTP)"},
        "port": first.port,
    }
    assert isinstance(moved, MCPError) and moved.error.code == types.INVALID_PARAMS
    if shared:
        # The confirmation travels whole in the requestState: the other replica runs the tool.
        assert not isinstance(moved_confirmation, MCPError), moved_confirmation
        assert moved_confirmation.content[0].text == f"done on {second.port}"
        # The script waits on the first replica; the second opens the state and says so.
        assert moved.error.message.startswith("This call's script waits for its answers in another server")
        assert "Route a client's requests to one replica" in moved.error.message
    else:
        for error in (moved, moved_confirmation):
            assert isinstance(error, MCPError)
            assert error.error.code == types.INVALID_PARAMS
            assert error.error.message.startswith("Invalid or expired requestState: ")
            assert "TOOLKILN_STATE_SECRET_FILE" in error.error.message
        # The server's log has the SDK's reason: a key it does not hold.
        assert (
            "requestState rejected on tools/call: unknown key"
            in (tmp_path / "replica-b" / "stderr").read_text()
        )
