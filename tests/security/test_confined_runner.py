"""The long-lived confined runner (`process/runners.py`, `runner_main.py`, `cell.py`):
one bubblewrap per confinement profile, each call in namespaces of its own made inside it.
What held with one bubblewrap per call must still hold between two calls of one profile,
and against the resident that starts them; real processes, real bubblewrap."""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

import anyio
import pytest

from toolkiln.model import Limits
from toolkiln.process import Confinement, confinement_problem, run_process
from toolkiln.process.runners import runner_for, stop_runners
from toolkiln.process.spawner import spawner

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(confinement_problem() is not None, reason=f"{confinement_problem()}"),
    pytest.mark.skipif(spawner() is None, reason="no spawner here (Linux x86-64 only)"),
]

STRICT = Confinement(network=False)


def processes_named(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    if marker.encode() in cmdline.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


async def run(script: str, confinement: Confinement = STRICT, timeout: float = 10, **options: object) -> str:
    result = await run_process(
        ["bash", "-c", script], timeout=timeout, confinement=confinement, cwd="/", **options
    )  # type: ignore[arg-type]
    return result.stdout_text


@pytest.fixture(autouse=True)
def fresh_runners() -> None:
    stop_runners()


async def test_calls_of_one_profile_share_one_runner_and_nothing_else() -> None:
    """Each call: PID 1 of its own, a fresh /tmp, /var/tmp and /dev/shm; the profile's
    emptied folders read-only; no sight of another call nor of the resident."""
    marker = f"tk-neighbour-{uuid.uuid4().hex[:8]}"
    first = runner_for(STRICT)
    seen: list[str] = []

    async def neighbour() -> None:
        await run(
            f"echo secret > /tmp/left; echo secret > /dev/shm/left; echo secret > /var/tmp/left; "
            f"exec -a {marker} sleep 3"
        )

    async with anyio.create_task_group() as group:
        group.start_soon(neighbour)
        deadline = time.monotonic() + 10
        while not processes_named(marker) and time.monotonic() < deadline:
            await anyio.sleep(0.02)
        seen.append(
            await run(
                "echo pid $$; cat /tmp/left /dev/shm/left /var/tmp/left 2>/dev/null; "
                f"grep -l '{marker[:-1]}[{marker[-1]}]' /proc/[0-9]*/cmdline 2>/dev/null; "
                "ls /proc | grep -c '^[0-9]'; "
                "(echo x > /run/left) 2>/dev/null && echo wrote-run; "
                "(echo x > /dev/left) 2>/dev/null && echo wrote-dev; "
                "ls -l /proc/$$/fd | grep -c socket; "
                "grep CapEff /proc/self/status; grep CapBnd /proc/self/status"
            )
        )
        group.cancel_scope.cancel()
    lines = seen[0].split("\n")
    assert lines[0] == "pid 2"  # init is PID 1; neither the resident nor the neighbour is here
    assert "secret" not in seen[0] and "/proc/" not in seen[0]  # no file left, no neighbour seen
    assert "wrote-run" not in seen[0] and "wrote-dev" not in seen[0]
    assert "CapEff:\t0000000000000000" in lines and "CapBnd:\t0000000000000000" in lines
    assert int(lines[-5]) <= 4  # init, sh, and what it runs
    assert lines[-4] == "0"  # no socket: neither the resident's nor a cell's
    assert runner_for(STRICT) is first


async def test_an_escapee_of_a_call_dies_with_it_and_the_runner_lives_on(tmp_path: Path) -> None:
    marker = f"tk-escapee-{uuid.uuid4().hex[:8]}"
    first = runner_for(STRICT)
    said = await run(
        f"setsid env -i bash -c 'exec -a {marker} sleep 305' </dev/null >/dev/null 2>&1 & echo started"
    )
    assert said == "started\n"
    deadline = time.monotonic() + 5
    while processes_named(marker) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert processes_named(marker) == []
    assert runner_for(STRICT) is first and (await run("echo next")) == "next\n"


async def test_a_hostile_call_cannot_end_the_resident_nor_its_init() -> None:
    """kill -1 and signals to PID 1 reach only the call itself; the runner serves the next call."""
    first = runner_for(STRICT)
    await run("kill -KILL 1; kill -TERM 1; kill -INT 1; kill -KILL -1; echo survived")
    assert first is not None and not first.gone
    assert runner_for(STRICT) is first and (await run("echo next")) == "next\n"


async def test_timeout_signals_exit_status_rlimits_and_environment_reach_the_call(tmp_path: Path) -> None:
    trap = await run_process(
        ["sh", "-c", f"trap 'echo term > {tmp_path}/said; exit 3' TERM; echo ready; sleep 9; sleep 9"],
        timeout=1, confinement=Confinement(network=False, writable=(str(tmp_path),)), cwd=str(tmp_path),
    )  # fmt: skip
    assert trap.timed_out and trap.stdout_text == "ready\n" and (tmp_path / "said").read_text() == "term\n"
    killed = await run_process(["sh", "-c", "kill -USR1 $$"], timeout=10, confinement=STRICT)
    assert killed.returncode == -signal.SIGUSR1
    status = await run_process(["sh", "-c", "exit 7"], timeout=10, confinement=STRICT)
    assert status.returncode == 7
    said = await run(
        "ulimit -n; echo $ONLY; pwd",
        limits=Limits(open_files=37),
        env={"ONLY": "mine", "PATH": os.environ["PATH"]},
    )
    assert said == "37\nmine\n/\n"
    fed = await run_process(["cat"], timeout=10, confinement=STRICT, input=b"fed\n")
    assert fed.stdout == b"fed\n"


async def test_a_killed_runner_fails_its_call_and_a_new_one_starts() -> None:
    """A hostile unconfined tool runs as the same user: it can kill a runner's bubblewrap.
    The call it ran ends (killed), and the next call starts a new runner."""
    marker = f"tk-victim-{uuid.uuid4().hex[:8]}"
    first = runner_for(STRICT)
    assert first is not None
    results = []

    async def call() -> None:
        results.append(
            await run_process(["bash", "-c", f"exec -a {marker} sleep 30"], timeout=20, confinement=STRICT)
        )

    async with anyio.create_task_group() as group:
        group.start_soon(call)
        deadline = time.monotonic() + 10
        while not processes_named(marker) and time.monotonic() < deadline:
            await anyio.sleep(0.02)
        first.process.signal_group(signal.SIGKILL)
    assert results[0].returncode == -signal.SIGKILL and not results[0].timed_out
    assert processes_named(marker) == []
    assert (await run("echo again")) == "again\n"
    second = runner_for(STRICT)
    assert second is not None and second is not first
    second.process.signal_group(signal.SIGKILL)  # between two calls: the next asks a new one
    assert (await run("echo once more")) == "once more\n"
    assert runner_for(STRICT) is not second


async def test_runners_are_capped_and_end_when_stopped() -> None:
    from toolkiln.process import runners

    count = runners.MAX_RUNNERS + 2
    profiles = [Confinement(network=False, writable=(f"/nonexistent-{index}",)) for index in range(count)]
    started = [runner_for(profile) for profile in profiles]
    assert len(runners._runners) <= runners.MAX_RUNNERS
    stop_runners()
    assert not runners._runners
    for runner in started:
        assert runner is not None and runner.gone


PROBED = """#!/bin/bash
if [ "$1" = "--help" ]; then
  echo '{"description": "Probed NUMBER"}'
  echo '{}' >&2
  exit 0
fi
"""


def test_discovery_probes_through_one_runner_that_ends_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the state folder in the home a probe does not see (hidden, then the state
    folder hidden inside it), the probes' runner starts, and ends with the discovery."""
    from toolkiln.discover import discover_tools
    from toolkiln.process import runners
    from toolkiln.state_dir import default_state_dir

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    default_state_dir().mkdir(parents=True)

    tools = tmp_path / "tools"
    tools.mkdir()
    for number in range(6):
        script = tools / f"probed-{number}.sh"
        script.write_text(PROBED.replace("NUMBER", str(number)))
        script.chmod(0o755)
    started: list[object] = []
    original = runners._start

    def counted(*arguments: object) -> object:
        runner = original(*arguments)  # type: ignore[arg-type]
        started.append(runner)
        return runner

    runners._start = counted  # type: ignore[assignment]
    try:
        report = discover_tools(tools, tmp_path / "config")
    finally:
        runners._start = original
    assert not report.errors, report.errors
    assert sorted(tool.name for tool in report.tools) == [f"probed-{number}" for number in range(6)]
    assert len(started) == 1 and started[0] is not None  # one bubblewrap for the six probes
    assert not runners._failed
    assert not runners._runners and processes_named(str(runners._MAIN)) == []


async def test_a_cell_used_again_keeps_nothing_of_the_call_before(tmp_path: Path) -> None:
    """A cell serves one call after another (its processes killed, a new mount and IPC
    namespace, fresh private folders between): the next call finds no file, no process,
    no shared memory of the last, and still sees the profile's folders under /tmp."""
    marker = f"tk-leftover-{uuid.uuid4().hex[:8]}"
    profile = Confinement(network=False, writable=(str(tmp_path),))
    pids = []
    for number in range(8):
        said = await run(
            f"echo $$; ls -A /tmp /var/tmp /dev/shm | grep -c left; ipcs -m | grep -c '^0x'; "
            f"grep -l '{marker[:-1]}[{marker[-1]}]' /proc/[0-9]*/cmdline 2>/dev/null | wc -l; "
            f"echo {number} > {tmp_path}/seen; cat {tmp_path}/seen; "
            "echo x > /tmp/left; echo x > /var/tmp/left; echo x > /dev/shm/left; ipcmk -M 4096 >/dev/null; "
            f"M={marker[:6]}; M=$M{marker[6:]}; "  # the marker whole only in the escapee's name
            'setsid env -i bash -c "exec -a $M sleep 305" </dev/null >/dev/null 2>&1 &',
            confinement=profile,
        )
        pid, files, segments, leftovers, seen = said.split()
        pids.append(int(pid))
        assert (files, segments, leftovers, seen) == ("0", "0", "0", str(number)), said
    assert max(pids) > 2  # a cell was used again (its PID namespace goes on counting)
    deadline = time.monotonic() + 5
    while processes_named(marker) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert processes_named(marker) == []
