"""Load: 1,000 calls from 16 concurrent HTTP clients (one server) and 4 stdio clients (a
server each), all at once, mixing fast, slow, failing and cancelled calls. Every call is
answered exactly once with its own answer, none is lost, each script ran once, no
process is left behind, and the servers' memory is flat afterwards.

`make soak` runs the same mix for minutes (SOAK_SECONDS, default 300) and checks that
memory and open files stay flat from round to round."""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import child_env
from tests.faults.helpers import (
    MARK_VAR,
    assert_no_leftovers,
    http_server,
    marked_processes,
    new_mark,
    status_kib,
)
from tests.faults.scripts import write_script
from tests.faults.tally import LEAKED, LOAD_CALLS, LOST_CALLS, count
from tests.serve.http_server import RunningServer, mcp_client
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

HTTP_CLIENTS, STDIO_CLIENTS = 16, 4
CALLS = 1000
CALL_SECONDS = 60
CANCEL_AFTER = 0.3
# Growth of a server's RSS from after the warm-up to the end that still counts as flat.
RSS_GROWTH_KIB = 40 * 1024

TOOL = """\
#!/bin/bash
# Tool: {name}
# Description: {description}
# @param id: The call's id (type: string, required: true)
echo "$id $$" >> "$LEDGER"
{body}
"""
TOOLS = {
    "fast": ("Answer at once", 'echo "answer $id"'),
    "slow": ("Answer after a while", 'sleep 0.3\necho "answer $id"'),
    "failing": ("Fail", 'echo "failed $id"\nexit 3'),
    "hang": ("Never answer (cancelled by the client)", "sleep 30 &\nwait"),
}
# The mix, by call number: 7 fast, 1 slow, 1 failing, 1 cancelled in every 10.
MIX = ["fast", "fast", "slow", "fast", "failing", "fast", "hang", "fast", "fast", "fast"]


@dataclass
class Outcome:
    answered: Counter[str] = field(default_factory=Counter)  # call id -> answers with its own text
    wrong: list[str] = field(default_factory=list)  # answers that were not the call's own
    lost: list[str] = field(default_factory=list)  # calls that got no answer (or an exception)
    cancelled: set[str] = field(default_factory=set)
    kinds: dict[str, str] = field(default_factory=dict)


@pytest.fixture(scope="module")
def load_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("load")
    for name, (description, body) in TOOLS.items():
        write_script(
            root / "tools" / f"{name}.sh", TOOL.format(name=name, description=description, body=body)
        )
    assert not discover_tools(root / "tools", root / "config").errors
    build_catalog(root / "config", root / "tools")
    return root / "config"


async def _one_call(client: Client, call_id: str, kind: str, outcome: Outcome) -> None:
    outcome.kinds[call_id] = kind
    if kind == "hang":
        with anyio.move_on_after(CANCEL_AFTER):
            await client.call_tool("hang", {"id": call_id})
            outcome.wrong.append(f"{call_id}: a call of hang was answered")
        outcome.cancelled.add(call_id)
        return
    try:
        with anyio.fail_after(CALL_SECONDS):
            result = await client.call_tool(kind, {"id": call_id})
    except Exception as error:  # a timeout, a protocol error, a dropped connection
        outcome.lost.append(f"{call_id} ({kind}): {error!r}")
        return
    text = "\n".join(getattr(block, "text", "") for block in result.content)
    expected = f"failed {call_id}" if kind == "failing" else f"answer {call_id}"
    if expected in text.split("\n") and result.is_error is (kind == "failing"):
        outcome.answered[call_id] += 1
    else:
        outcome.wrong.append(f"{call_id} ({kind}): {text[:200]!r}")


async def _client_calls(client: Client, prefix: str, numbers: range, outcome: Outcome) -> None:
    for number in numbers:
        await _one_call(client, f"{prefix}-{number}", MIX[number % len(MIX)], outcome)


def _stdio_params(config_dir: Path, mark: str, ledger: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolkiln", "serve", "--config-dir", str(config_dir), "--tools-dir", "unused"],
        env={**child_env(), MARK_VAR: mark, "LEDGER": str(ledger)},
    )


async def _run_round(
    http: RunningServer, stdio: list[Client], calls_per_client: int, prefix: str, outcome: Outcome
) -> None:
    """Every client makes `calls_per_client` calls, all clients at once."""
    async with AsyncExitStack() as stack:
        http_clients = [
            await stack.enter_async_context(mcp_client(http, "legacy" if index % 2 else "auto"))
            for index in range(HTTP_CLIENTS)
        ]
        async with anyio.create_task_group() as group:
            for index, client in enumerate([*http_clients, *stdio]):
                where = "http" if index < HTTP_CLIENTS else "stdio"
                numbers = range(calls_per_client)
                group.start_soon(_client_calls, client, f"{prefix}{where}{index}", numbers, outcome)


@dataclass
class LoadServers:
    http: RunningServer
    stdio_pids: list[int]
    mark: str
    ledger: Path

    @property
    def pids(self) -> list[int]:
        return [self.http.process.pid, *self.stdio_pids]

    def rss_kib(self) -> dict[int, int]:
        return {pid: status_kib(pid, "VmRSS") for pid in self.pids}


def _stdio_server_pids(mark: str) -> list[int]:
    return [
        pid for pid, command in marked_processes(mark).items() if "toolkiln serve --config-dir" in command
    ]


@pytest.fixture
def load_http(load_config: Path, tmp_path: Path) -> Iterator[tuple[RunningServer, str, Path]]:
    mark, ledger = new_mark(), tmp_path / "ledger"
    ledger.touch()
    state = tmp_path / "state"
    state.mkdir()
    with http_server(
        load_config, state, "--no-audit", "--max-concurrency", "8", **{MARK_VAR: mark, "LEDGER": str(ledger)}
    ) as running:
        yield running, mark, ledger
        running.stop()
    assert_no_leftovers(mark, keep_workers=False)


def _check(outcome: Outcome, ledger: Path, calls: int, label: str) -> None:
    ids = (line.split()[0] for line in ledger.read_text().splitlines())
    ran = Counter(call_id for call_id in ids if call_id.startswith(label))
    answered_calls = [call_id for call_id in outcome.kinds if call_id not in outcome.cancelled]
    lost = [call_id for call_id in answered_calls if outcome.answered[call_id] == 0]
    count(LOAD_CALLS, len(outcome.kinds))
    count(LOST_CALLS, len(set(lost)))
    assert len(outcome.kinds) == calls
    assert outcome.lost == [] and lost == [], (outcome.lost, lost)
    assert outcome.wrong == []
    assert all(outcome.answered[call_id] == 1 for call_id in answered_calls)
    # Each script that was asked for ran exactly once; a cancelled one at most once.
    assert all(ran[call_id] == 1 for call_id in answered_calls), [c for c in answered_calls if ran[c] != 1]
    assert all(ran[call_id] <= 1 for call_id in outcome.cancelled)
    assert set(ran) <= set(outcome.kinds)


def _run_load(
    servers: LoadServers, config_dir: Path, rounds: int, calls_per_client: int, label: str
) -> list[dict[int, int]]:
    """Run `rounds` rounds of calls whose ids start with `label`; the servers' RSS after each."""
    rss: list[dict[int, int]] = []
    outcome = Outcome()

    async def main() -> None:
        async with AsyncExitStack() as stack:
            stdio = [
                await stack.enter_async_context(
                    Client(
                        _stdio_params(config_dir, servers.mark, servers.ledger),
                        mode=("legacy", "auto")[i % 2],
                    )
                )
                for i in range(STDIO_CLIENTS)
            ]
            servers.stdio_pids[:] = _stdio_server_pids(servers.mark)
            assert len(servers.stdio_pids) == STDIO_CLIENTS
            for number in range(rounds):
                await _run_round(servers.http, stdio, calls_per_client, f"{label}{number}-", outcome)
                await anyio.sleep(0.5)  # let cancelled calls finish unwinding
                rss.append(servers.rss_kib())

    anyio.run(main)
    _check(outcome, servers.ledger, rounds * calls_per_client * (HTTP_CLIENTS + STDIO_CLIENTS), label)
    return rss


def test_a_thousand_calls_at_once(load_config: Path, load_http: tuple[RunningServer, str, Path]) -> None:
    http, mark, ledger = load_http
    servers = LoadServers(http, [], mark, ledger)
    clients = HTTP_CLIENTS + STDIO_CLIENTS
    warm_up = 5  # calls per client, to load every code path before the first RSS reading
    rss = _run_load(servers, load_config, 1, warm_up, "warm-up")
    rss += _run_load(servers, load_config, 1, CALLS // clients, "load")
    before, after = rss[0], rss[-1]
    # The stdio servers of the warm-up are gone; compare the HTTP server, which served both.
    growth = after[http.process.pid] - before[http.process.pid]
    assert growth < RSS_GROWTH_KIB, f"the HTTP server grew by {growth} KiB over {CALLS} calls"
    left = [pid for pid in marked_processes(mark) if pid != http.process.pid]
    if left:
        count(LEAKED, len(left))
    assert_no_leftovers(mark, keep=[http.process.pid])


@pytest.mark.soak
@pytest.mark.timeout(3600)
def test_soak(load_config: Path, load_http: tuple[RunningServer, str, Path]) -> None:
    """Round after round of the same mix for SOAK_SECONDS; memory and open files flat."""
    http, mark, ledger = load_http
    seconds = float(os.environ.get("SOAK_SECONDS", "300"))
    servers = LoadServers(http, [], mark, ledger)
    pid = http.process.pid
    fds = [len(os.listdir(f"/proc/{pid}/fd"))]
    rss: list[int] = []
    started = time.monotonic()
    rounds = 0
    while time.monotonic() - started < seconds:
        rss += [
            sample[pid]
            for sample in _run_load(
                servers, load_config, 1, CALLS // (HTTP_CLIENTS + STDIO_CLIENTS), f"soak{rounds}-"
            )
        ]
        fds.append(len(os.listdir(f"/proc/{pid}/fd")))
        rounds += 1
        elapsed = time.monotonic() - started
        print(f"soak round {rounds}: {elapsed:.0f} s, RSS {rss[-1] / 1024:.1f} MiB, {fds[-1]} fds")
        assert_no_leftovers(mark, keep=[pid])
    assert rounds >= 2
    assert rss[-1] - rss[0] < RSS_GROWTH_KIB, rss
    assert fds[-1] <= fds[1] + 5, fds
