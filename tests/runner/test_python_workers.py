"""Python-module tools on warm workers: real worker processes, through ToolRunner."""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeTool, pids_alive
from tests.runner.test_call import Recorder, settings_for
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.files import catalog_path
from toolkiln.runner import Registry, RunSettings, ToolRunner

pytestmark = pytest.mark.anyio

COUNTED = '''"""Count imports and calls.

@param n: A number (type: integer, default: 1)
"""
import os, sys
with open(os.environ["IMPORTS_FILE"], "a") as f:
    f.write("imported\\n")
CALLS = 0

def execute(params):
    global CALLS
    CALLS += 1
    print("a print goes to stderr, not into the result")
    print("PROGRESS 1/2 working", file=sys.stderr)
    print("INFO half way", file=sys.stderr)
    return {"status": "success", "data": {"pid": os.getpid(), "calls": CALLS, "n": params["n"]},
            "metadata": {"cost_usd": 0.25, "rows_processed": 3}}
'''

MISBEHAVING = '''"""Fail in every way there is.

@param how: What to do (type: string, required: true)
"""
import os, signal, sys, time

def execute(params):
    how = params["how"]
    if how == "raise":
        raise KeyError("no such lead")
    if how == "exit":
        sys.exit(3)
    if how == "loop":
        while True:
            pass
    if how == "sleep":
        time.sleep(60)
    if how == "burn":
        started = time.process_time()
        while time.process_time() - started < 0.7:
            pass
    if how == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if how == "allocate":
        block = bytearray(600 * 1024 * 1024)
        return {"size": len(block)}
    if how == "error":
        return {"status": "error", "error": "the API said no", "metadata": {"cost_usd": 0.1}}
    if how == "nan":
        return {"value": float("nan")}
    if how == "text":
        return "plain words"
    return {"pid": os.getpid()}
'''


LEGACY = """import argparse, json

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", required=True)
    parser.add_argument("--loud", action="store_true")
    parser.add_argument("-n", type=int, default=1)
    parser.add_argument("rest", nargs="*")
    print(json.dumps(vars(parser.parse_args())))

main()
"""


@pytest.fixture
def imports_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "imports.txt"
    monkeypatch.setenv("IMPORTS_FILE", str(path))
    return path


def build(tools_dir: Path, config_dir: Path, **limits: dict[str, Any]) -> Registry:
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, [str(error) for error in report.errors]
    for name, tool_limits in limits.items():
        path = config_dir / "tools" / f"{name}.json"
        config = json.loads(path.read_text())
        config["script_config"]["limits"] = tool_limits
        path.write_text(json.dumps(config))
    build_catalog(config_dir, tools_dir)
    return Registry.load(catalog_path(config_dir))


@pytest.fixture
def registry(make_tool: MakeTool, tools_dir: Path, config_dir: Path, imports_file: Path) -> Registry:
    make_tool("counted.py", COUNTED, executable=False)
    make_tool("misbehaving.py", MISBEHAVING, executable=False)
    return build(tools_dir, config_dir, misbehaving={"memory_mb": 300, "cpu_seconds": 1})


@pytest.fixture
async def runner(registry: Registry) -> AsyncIterator[ToolRunner]:
    runner = ToolRunner(registry, RunSettings(env=settings_for(registry).env, default_timeout=5))
    yield runner
    await runner.close()


async def test_one_worker_imports_the_module_once_and_serves_many_calls(
    runner: ToolRunner, imports_file: Path
) -> None:
    recorder = Recorder()
    results = [await runner.call("counted", {"n": n}, recorder) for n in range(20)]
    assert not any(result.is_error for result in results)
    data = [result.structured for result in results]
    assert {item["pid"] for item in data} == {data[0]["pid"]}  # one warm worker
    assert [item["calls"] for item in data] == list(range(1, 21))
    assert imports_file.read_text() == "imported\n"
    assert json.loads(results[0].text) == data[0]
    assert results[0].meta is not None
    assert results[0].meta["cost_usd"] == 0.25 and results[0].meta["rows_processed"] == 3
    assert results[0].meta["duration_sec"] >= 0  # filled in: the tool left it out
    assert ("progress", (1.0, 2.0, "working")) in recorder.events
    assert ("log", ("info", "half way")) in recorder.events


async def test_an_exception_is_a_tool_error_with_its_type_and_message(
    runner: ToolRunner, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="toolkiln.runner.python_pool")
    result = await runner.call("misbehaving", {"how": "raise"})
    assert result.is_error
    assert result.text.startswith("Tool 'misbehaving' raised: KeyError: 'no such lead'")
    assert "Traceback" not in result.text  # the traceback is for the server's log only
    assert 'raise KeyError("no such lead")' in caplog.text
    assert not (await runner.call("misbehaving", {"how": "ok"})).is_error


async def test_sys_exit_is_a_tool_error_and_the_worker_lives_on(runner: ToolRunner) -> None:
    before = (await runner.call("misbehaving", {"how": "ok"})).structured
    result = await runner.call("misbehaving", {"how": "exit"})
    assert result.is_error and "called sys.exit(3) (forbidden)" in result.text
    assert (await runner.call("misbehaving", {"how": "ok"})).structured == before


async def test_a_hung_call_times_out_and_the_next_call_gets_a_new_worker(runner: ToolRunner) -> None:
    first = (await runner.call("misbehaving", {"how": "ok"})).structured
    assert first is not None
    result = await runner.call("misbehaving", {"how": "sleep"})
    assert result.is_error and "timed out after 5 s; its worker process was stopped" in result.text
    assert pids_alive([first["pid"]]) == []
    after = (await runner.call("misbehaving", {"how": "ok"})).structured
    assert after is not None and after["pid"] != first["pid"]


async def test_the_cpu_limit_is_a_budget_per_call_on_a_warm_worker(runner: ToolRunner) -> None:
    # 0.7 s of CPU each: over the 1 s limit together, but every call gets its own second.
    burns = [await runner.call("misbehaving", {"how": "burn"}) for _ in range(3)]
    assert not any(result.is_error for result in burns), [result.text for result in burns]
    assert len({result.structured["pid"] for result in burns if result.structured}) == 1
    result = await runner.call("misbehaving", {"how": "loop"})
    # The CPU limit names itself; on a machine so loaded that the loop gets less than a
    # second of CPU before the wall-clock timeout, the timeout fires first (issue 31):
    # either way the call is an error and the worker is stopped.
    stopped = ("CPU limit (cpu_seconds: 1)", "timed out after")
    assert result.is_error and any(reason in result.text for reason in stopped), result.text
    assert not (await runner.call("misbehaving", {"how": "ok"})).is_error


async def test_a_crash_is_reported_and_the_worker_replaced(runner: ToolRunner) -> None:
    result = await runner.call("misbehaving", {"how": "crash"})
    assert result.is_error and "crashed: its worker process was killed by SIGSEGV" in result.text
    assert not (await runner.call("misbehaving", {"how": "ok"})).is_error


async def test_the_memory_limit_names_itself_and_the_worker_is_replaced(runner: ToolRunner) -> None:
    first = (await runner.call("misbehaving", {"how": "ok"})).structured
    assert first is not None
    result = await runner.call("misbehaving", {"how": "allocate"})
    assert result.is_error and "memory limit (memory_mb: 300)" in result.text
    after = (await runner.call("misbehaving", {"how": "ok"})).structured
    assert after is not None and after["pid"] != first["pid"]


async def test_results_other_than_the_envelope(runner: ToolRunner) -> None:
    error = await runner.call("misbehaving", {"how": "error"})
    assert error.is_error and error.text == "the API said no" and error.meta and error.meta["cost_usd"] == 0.1
    text = await runner.call("misbehaving", {"how": "text"})
    assert (text.text, text.structured, text.is_error) == ("plain words", None, False)
    nan = await runner.call("misbehaving", {"how": "nan"})
    assert nan.is_error and "the result is not JSON" in nan.text


async def test_an_edited_module_is_reloaded(runner: ToolRunner, tools_dir: Path, imports_file: Path) -> None:
    first = (await runner.call("counted", {"n": 1})).structured
    module = tools_dir / "counted.py"
    module.write_text(module.read_text().replace('"n": params["n"]', '"n": params["n"] * 100'))
    os.utime(module, ns=(time.time_ns(), time.time_ns() + 1_000_000_000))
    second = (await runner.call("counted", {"n": 2})).structured
    assert first is not None and second is not None
    assert second["n"] == 200 and second["pid"] != first["pid"]
    assert imports_file.read_text() == "imported\n" * 2


@pytest.fixture
def more_tools(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Registry:
    make_tool("broken.py", "INPUTS = {}\nimport not_a_module_anywhere\ndef execute(params):\n    return {}\n")
    make_tool(
        "kw.py", "def execute(word: str, times: int = 2) -> str:\n    return ' '.join([word] * times)\n"
    )
    make_tool("legacy.py", LEGACY)
    return build(tools_dir, config_dir)


async def test_a_module_that_fails_to_import(more_tools: Registry) -> None:
    registry = more_tools
    runner = ToolRunner(registry, settings_for(registry))
    try:
        result = await runner.call("broken", {})
    finally:
        await runner.close()
    assert result.is_error
    assert (
        "could not import its module: ModuleNotFoundError: No module named 'not_a_module_anywhere'"
        in result.text
    )


async def test_keyword_tools_and_legacy_argparse_scripts(more_tools: Registry) -> None:
    registry = more_tools
    runner = ToolRunner(registry, settings_for(registry))
    try:
        keyword = await runner.call("kw", {"word": "hi"})
        legacy = await runner.call(
            "legacy", {"name": "-x; rm -rf /", "loud": True, "n": 3, "rest": ["-a", "b"]}
        )
    finally:
        await runner.close()
    assert keyword.text == "hi hi"
    assert json.loads(legacy.text) == {"name": "-x; rm -rf /", "loud": True, "n": 3, "rest": ["-a", "b"]}
