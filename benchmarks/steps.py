"""What each step of a plain `tools/call` costs, measured alone in this process (which has the
server's modules loaded): the SDK's reading of the request line, the checks of the script
and the arguments, the environment and argv, the task interception, the process (spawn to
exit, through the spawner, beside a bare Popen), the audit record and the result envelope;
then the runner's whole call and the service's (audit on). Confinement's cost is in its
own section (benchmarks/confinement.py). Per-step medians in microseconds, so that a
regression shows in the step where it happens."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types

import toolkiln.serve.stdio.transport  # noqa: F401  (the stdio server's modules, as a call finds them loaded)
from benchmarks.projects import served_project
from benchmarks.rounds import Figures, Preset
from toolkiln.audit import AuditLog
from toolkiln.process import run_process
from toolkiln.runner import Registry, ToolResult, ToolRunner
from toolkiln.runner.call import RunSettings
from toolkiln.runner.environment import script_env
from toolkiln.schema import prepare_arguments
from toolkiln.serve.assemble import assemble
from toolkiln.serve.results import mcp_result
from toolkiln.serve.stdio.backlog import Backlog
from toolkiln.serve.stdio.transport import _Writer
from toolkiln.serve.tasks.protocol import TasksExtension

ARGUMENTS = {"message": "hello"}
REQUEST = json.dumps(
    {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo", "arguments": ARGUMENTS}}
)
REPEAT = 200  # in-process steps: timed REPEAT at a time, the median of rounds kept
LABELS = {
    "read_request": "the SDK reads the request line (JSON-RPC validation)",
    "script_check": "the script's place (inside the tools folder, no writable folder)",
    "validation": "argument validation (JSON Schema) and defaults",
    "environment": "the environment of the run",
    "task_interception": "the tasks extension's interception of a plain call",
    "answer_write": "the stdio writer: one answer line to a pipe (its lock, the write, the backlog)",
    "audit": "the audit record (redaction, JSON, one write)",
    "envelope": "the result envelope (CallToolResult, dumped to the wire)",
    "spawn_floor": "a bare Popen of the script, to its exit (pidfd)",
    "spawn": "the script's process: the spawner asked (pipelined), pipes, its exit said unasked",
    "runner_call": "ToolRunner.call: all of the runner's part",
    "service_call": "ToolService.call_tool: the runner's part, the audit and the envelope",
}


def measure_steps(root: Path, preset: Preset) -> Figures:
    config = served_project(root / "steps", 10)
    registry = Registry.load(config / "tools.json")
    runner = ToolRunner(registry, RunSettings())
    tool = registry.get("echo")
    script = registry.script_path(tool)
    audit = AuditLog(root / "steps-audit" / "audit.jsonl")
    service = assemble(runner, audit, state_dir=root / "steps-state").service
    extension = TasksExtension(service.tasks, lambda name: None)
    env = script_env(runner._env, tool, script, ARGUMENTS)
    argv = [str(script)]  # echo's convention (help-json): its arguments are in the environment
    envelope = ToolResult(text="hello", is_error=False, exit_code=0, duration_ms=1.0)
    rounds = max(5, preset.calls // 10)

    def audit_record() -> None:
        prepared = audit.prepare(
            time.time(), tool="echo", transport="stdio", client="bench", arguments=ARGUMENTS
        )
        audit.record(prepared, duration_ms=1.0, success=True, exit_code=0, error=None)

    def validate() -> None:
        registry.checker(tool).problems(dict(ARGUMENTS))
        prepare_arguments(tool.input_schema, dict(ARGUMENTS))

    async def next_step(ctx: Any) -> None:
        return None

    params = types.CallToolRequestParams(name="echo", arguments=ARGUMENTS)
    in_process: dict[str, Callable[[], object]] = {
        "read_request": lambda: types.jsonrpc_message_adapter.validate_json(REQUEST, by_name=False),
        "script_check": lambda: registry.script_path(tool),
        "validation": validate,
        "environment": lambda: script_env(runner._env, tool, script, ARGUMENTS),
        "audit": audit_record,
        "envelope": lambda: mcp_result(envelope).model_dump(by_alias=True, mode="json", exclude_none=True),
    }
    micro: dict[str, list[float]] = {name: [] for name in [*in_process, "task_interception", "answer_write"]}
    for _ in range(rounds):
        for name, step in in_process.items():
            started = time.perf_counter()
            for _ in range(REPEAT):
                step()
            micro[name].append((time.perf_counter() - started) / REPEAT)

    async def intercept() -> None:
        for _ in range(rounds):
            started = time.perf_counter()
            for _ in range(REPEAT):
                await extension.intercept_tool_call(params, None, next_step)  # type: ignore[arg-type]
            micro["task_interception"].append((time.perf_counter() - started) / REPEAT)
        result = mcp_result(envelope).model_dump(by_alias=True, mode="json", exclude_none=True)
        answer = json.dumps({"jsonrpc": "2.0", "id": 7, "result": result}, separators=(",", ":"))
        wire_in, wire_out = os.pipe()
        backlog = Backlog(1)
        writer = _Writer(wire_out, backlog)
        try:
            for _ in range(rounds):
                started = time.perf_counter()
                for _ in range(REPEAT):
                    backlog.admit(7)
                    await writer.write(answer + "\n")  # settles the request it answers
                micro["answer_write"].append((time.perf_counter() - started) / REPEAT)
                while len(os.read(wire_in, 1 << 16)) == 1 << 16:  # drained for the next round
                    pass
        finally:
            os.close(wire_in)
            os.close(wire_out)

    anyio.run(intercept)
    processes: dict[str, Callable[[], Awaitable[object]]] = {
        "spawn_floor": lambda: _popen(argv, env, script.parent),
        "spawn": lambda: run_process(argv, timeout=10, cwd=script.parent, env=env),
        "runner_call": lambda: runner.call("echo", ARGUMENTS),
        "service_call": lambda: service.call_tool("echo", ARGUMENTS, transport="stdio"),
    }
    samples: dict[str, list[float]] = {name: [] for name in processes}

    async def run_processes() -> None:
        for _ in range(preset.calls):
            for name, step in processes.items():  # in turns: the same load for each
                started = time.perf_counter()
                await step()
                samples[name].append(time.perf_counter() - started)
        await runner.close()

    anyio.run(run_processes)
    audit.close()
    figures: Figures = {}
    for name, values in {**micro, **samples}.items():
        figures[name] = {"label": LABELS[name], "median_us": round(statistics.median(values) * 1e6, 1)}
    figures["spawn"]["over_floor_us"] = round(
        figures["spawn"]["median_us"] - figures["spawn_floor"]["median_us"], 1
    )
    figures["runner_call"]["over_spawn_us"] = round(
        figures["runner_call"]["median_us"] - figures["spawn"]["median_us"], 1
    )
    figures["service_call"]["over_runner_us"] = round(
        figures["service_call"]["median_us"] - figures["runner_call"]["median_us"], 1
    )
    return figures


async def _popen(argv: list[str], env: dict[str, str], cwd: Path) -> None:
    with subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd
    ) as process:
        pidfd = os.pidfd_open(process.pid)
        try:
            await anyio.wait_readable(pidfd)
        finally:
            os.close(pidfd)
        process.communicate()
