"""process.run_process on real processes: output, caps, stdin, timeouts, process groups, rlimits."""

from __future__ import annotations

import json
import resource
import signal
import sys
from pathlib import Path

import anyio
import pytest

from tests.conftest import pids_alive
from toolkiln.errors import ProcessStartError
from toolkiln.model import Limits
from toolkiln.process import rlimit_preexec, run_process
from toolkiln.process.spawner import spawner

pytestmark = pytest.mark.anyio


async def test_collects_stdout_stderr_and_exit_code() -> None:
    result = await run_process(["bash", "-c", "echo out; echo err >&2; exit 3"], timeout=10)
    assert result.returncode == 3
    assert result.stdout == b"out\n"
    assert result.stderr_text == "err\n"
    assert not result.timed_out
    assert not result.stdout_truncated


async def test_stderr_lines_reach_the_handler_in_order() -> None:
    lines: list[str] = []
    script = "for i in 1 2 3; do echo line$i >&2; done; printf 'last without newline' >&2"
    await run_process(["bash", "-c", script], timeout=10, on_stderr_line=lines.append)
    assert lines == ["line1", "line2", "line3", "last without newline"]


async def test_input_reaches_stdin_and_stdin_is_closed_after_it() -> None:
    result = await run_process(["cat"], timeout=10, input=b'{"a": 1}')
    assert result.stdout == b'{"a": 1}'


async def test_without_input_stdin_is_closed_so_readers_do_not_hang() -> None:
    result = await run_process(["cat"], timeout=10)
    assert result.returncode == 0
    assert not result.timed_out


async def test_large_input_to_a_script_that_never_reads_it() -> None:
    result = await run_process(["true"], timeout=10, input=b"x" * 5_000_000)
    assert result.returncode == 0
    assert not result.timed_out


async def test_input_bigger_than_the_pipe_is_fed_as_the_script_reads_it() -> None:
    data = bytes(range(256)) * 8192  # 2 MiB: the pipe takes 64 KiB at once
    result = await run_process(["cat"], timeout=30, input=data, stdout_limit=len(data))
    assert result.stdout == data


async def test_a_failing_stderr_handler_stops_neither_the_reading_nor_the_run() -> None:
    def handler(line: str) -> None:
        raise RuntimeError(f"cannot handle {line!r}")

    script = "echo first >&2; echo out; echo second >&2"
    result = await run_process(["bash", "-c", script], timeout=10, on_stderr_line=handler)
    assert (result.returncode, result.stdout, result.stderr_text) == (0, b"out\n", "first\nsecond\n")


async def test_stdout_is_capped_and_the_rest_counted() -> None:
    result = await run_process(["head", "-c", "50000000", "/dev/zero"], timeout=30, stdout_limit=1000)
    assert len(result.stdout) == 1000
    assert result.stdout_total == 50_000_000
    assert result.stdout_truncated


async def test_stderr_keeps_only_its_tail() -> None:
    script = "for i in $(seq 1 20000); do echo line$i; done >&2"
    result = await run_process(["bash", "-c", script], timeout=30, stderr_limit=100)
    assert len(result.stderr_tail) == 100
    assert result.stderr_text.endswith("line20000\n")
    assert result.stderr_total > 100


async def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = f"sleep 60 & echo $! >> {pids}; echo $$ >> {pids}; wait"
    result = await run_process(["bash", "-c", script], timeout=0.5)
    assert result.timed_out
    assert result.returncode is None
    recorded = [int(pid) for pid in pids.read_text().split()]
    assert len(recorded) == 2
    assert pids_alive(recorded) == []


async def test_a_script_that_ignores_sigterm_is_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    script = f"trap '' TERM; echo $$ > {pid_file}; while true; do sleep 0.1; done"
    result = await run_process(["bash", "-c", script], timeout=0.5)
    assert result.timed_out
    assert pids_alive([int(pid_file.read_text())]) == []


async def test_children_left_running_are_killed_when_the_main_process_exits(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    # The background sleep holds stdout open; the call must still end when bash does.
    result = await run_process(["bash", "-c", f"sleep 60 & echo $! > {pid_file}; echo done"], timeout=30)
    assert not result.timed_out
    assert result.returncode == 0
    assert result.stdout == b"done\n"
    assert pids_alive([int(pid_file.read_text())]) == []


async def test_cancelling_the_caller_kills_the_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    with anyio.move_on_after(0.5):
        await run_process(["bash", "-c", f"echo $$ > {pid_file}; sleep 60"], timeout=60)
    assert pids_alive([int(pid_file.read_text())]) == []


async def test_a_missing_program_is_a_start_error(tmp_path: Path) -> None:
    with pytest.raises(ProcessStartError, match="No such file"):
        await run_process([str(tmp_path / "nope")], timeout=5)


async def test_cwd_and_env_are_applied(tmp_path: Path) -> None:
    result = await run_process(
        [sys.executable, "-c", "import os; print(os.getcwd(), os.environ['GREETING'])"],
        timeout=10,
        cwd=tmp_path,
        env={"GREETING": "hello"},
    )
    assert result.stdout_text.split() == [str(tmp_path), "hello"]


async def test_a_nul_character_is_a_start_error_not_a_crash() -> None:
    with pytest.raises(ProcessStartError, match="NUL character"):
        await run_process(["echo", "a\0b"], timeout=5)
    with pytest.raises(ProcessStartError, match="NUL character"):
        await run_process(["true"], timeout=5, env={"X": "a\0b"})


# The child reports its own rlimits, as [soft, hard] per resource.
SHOW_RLIMITS = """
import json, resource
names = ["RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_CORE"]
print(json.dumps({name: resource.getrlimit(getattr(resource, name)) for name in names}))
"""


async def _child_rlimits(limits: Limits | None) -> dict[str, list[int]]:
    result = await run_process([sys.executable, "-c", SHOW_RLIMITS], timeout=10, limits=limits)
    assert result.returncode == 0, result.stderr_text
    shown: dict[str, list[int]] = json.loads(result.stdout)
    return shown


async def test_limits_become_the_childs_rlimits() -> None:
    limits = Limits(cpu_seconds=7, memory_mb=300, open_files=32, processes=500)
    shown = await _child_rlimits(limits)
    assert shown["RLIMIT_CPU"] == [7, 8]  # SIGXCPU at 7 s, SIGKILL at 8 s
    assert shown["RLIMIT_AS"] == [300 * 1024 * 1024] * 2
    assert shown["RLIMIT_NOFILE"] == [32, 32]
    assert shown["RLIMIT_NPROC"] == [500, 500]
    assert shown["RLIMIT_CORE"][0] == 0  # no core file from SIGXCPU


async def test_limits_left_unset_are_the_servers_own() -> None:
    own = await _child_rlimits(None)
    shown = await _child_rlimits(Limits(open_files=32))
    assert shown["RLIMIT_NOFILE"] == [32, 32]
    assert {name: value for name, value in shown.items() if name != "RLIMIT_NOFILE"} == {
        name: value for name, value in own.items() if name != "RLIMIT_NOFILE"
    }


async def test_a_limit_above_the_servers_hard_limit_is_clamped_to_it() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        pytest.skip("no hard limit on open files to clamp to")
    shown = await _child_rlimits(Limits(open_files=hard + 1000))
    assert shown["RLIMIT_NOFILE"] == [hard, hard]


def test_no_preexec_fn_without_an_rlimit_to_set() -> None:
    # Popen forks instead of vforking for any preexec_fn: only limits that need it get one.
    assert rlimit_preexec(None) is None
    assert rlimit_preexec(Limits()) is None
    assert rlimit_preexec(Limits(max_output_bytes=1000)) is None
    assert rlimit_preexec(Limits(open_files=10)) is not None


async def test_a_cpu_limit_stops_a_busy_loop_with_sigxcpu() -> None:
    result = await run_process(
        [sys.executable, "-c", "while True: pass"], timeout=30, limits=Limits(cpu_seconds=1)
    )
    assert not result.timed_out
    assert result.returncode == -signal.SIGXCPU


async def test_a_child_that_leaves_the_session_is_killed_with_its_run(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    # A daemon: its own session, its output elsewhere; killpg cannot reach it.
    script = (
        f"setsid bash -c 'echo $$ > {pid_file}.new; mv {pid_file}.new {pid_file}; exec sleep 60' "
        f"</dev/null >/dev/null 2>&1 & while [ ! -e {pid_file} ]; do sleep 0.01; done; echo started"
    )
    result = await run_process(["bash", "-c", script], timeout=10)
    assert result.stdout == b"started\n"
    assert pids_alive([int(pid_file.read_text())]) == []


async def test_a_child_that_leaves_the_group_is_killed_at_the_timeout(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    script = (
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setpgid(0, 0)\n"
        f"    open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(60)\n"
        "time.sleep(60)\n"
    )
    result = await run_process([sys.executable, "-c", script], timeout=1)
    assert result.timed_out
    assert pids_alive([int(pid_file.read_text())]) == []


async def test_a_process_that_leaves_its_session_and_environment_is_killed_with_its_run(
    tmp_path: Path,
) -> None:
    pid_file = tmp_path / "pid"
    script = (
        f"setsid env -i sh -c 'echo $$ > {pid_file}.new; mv {pid_file}.new {pid_file}; exec sleep 60' "
        f"</dev/null >/dev/null 2>&1 & while [ ! -e {pid_file} ]; do sleep 0.01; done; echo started"
    )
    result = await run_process(["sh", "-c", script], timeout=10)
    assert result.stdout == b"started\n"
    assert pids_alive([int(pid_file.read_text())]) == []


@pytest.mark.skipif(spawner() is None, reason="no spawner here (Linux x86-64 only)")
async def test_the_spawner_ignores_sigterm_and_a_killed_one_is_replaced() -> None:
    """A stop is the server's to make; a spawner killed under a call (a tool runs as the
    same user: it can) ends that call at once (killed, not left to its timeout), and the
    next process starts under a new spawner."""
    first = spawner()
    assert first is not None
    first.process.send_signal(signal.SIGTERM)
    assert (await run_process(["echo", "still"], timeout=10)).stdout == b"still\n"
    results = []

    started = anyio.Event()

    async def call() -> None:
        results.append(await run_process(["sleep", "30"], timeout=20, on_started=started.set))

    async with anyio.create_task_group() as group:
        group.start_soon(call)
        await started.wait()  # the spawner has answered: the call runs under it
        first.process.kill()
    assert not results[0].timed_out and results[0].returncode == -signal.SIGKILL
    assert (await run_process(["echo", "again"], timeout=10)).stdout == b"again\n"
    second = spawner()
    assert second is not None and second is not first
    second.process.kill()  # between two calls: the next start is asked of a new spawner
    second.process.wait()
    assert (await run_process(["echo", "once more"], timeout=10)).stdout == b"once more\n"
