"""One call's script, run: in a warm Python worker or as a process, its stderr lines
handed on as they come (logs, progress, an interactive script's questions), its output
turned into the call's result. `ToolRunner` (call.py) decides everything before it."""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkiln.conventions import launchers  # the module: it imports the runner package in turn
from toolkiln.conventions.launch import stdin_json
from toolkiln.errors import ProcessStartError
from toolkiln.model import CompiledTool
from toolkiln.process import Confinement, run_process
from toolkiln.runner.call_watch import CallWatch, timed_start
from toolkiln.runner.envelope import result_from_answer
from toolkiln.runner.environment import script_env, with_trace_context
from toolkiln.runner.interactive import Conversation
from toolkiln.runner.named_files import FileFence
from toolkiln.runner.observer import CallObserver
from toolkiln.runner.outcome import result_from_process, start_hint
from toolkiln.runner.python_pool import PythonWorkers
from toolkiln.runner.result import ToolResult
from toolkiln.runner.stderr import LogLine, ProgressLine, classify_line

STDERR_LINES_KEPT = 40
STDERR_LINE_CHARS = 1000


@dataclass(frozen=True)
class ScriptRun:
    """What one run of a tool's script needs, decided by the runner before it starts."""

    tool: CompiledTool
    script: Path
    arguments: dict[str, Any]
    confinement: Confinement | None
    base_env: Mapping[str, str]  # the environment it starts from (scrubbed when confined)
    remaining: float  # of its timeout, after waiting for a slot
    timeout: float
    stdout_limit: int
    files: FileFence  # where the files its output names may be
    observer: CallObserver
    on_started: Callable[[], None] | None = None
    tail_logs: bool = True
    watch: CallWatch | None = None


async def run_script(run: ScriptRun, workers: PythonWorkers) -> ToolResult:
    """The call's result: the script run on a warm worker when its convention says so,
    else as a process."""
    tool, name = run.tool, run.tool.name
    stderr_lines: deque[str] = deque(maxlen=STDERR_LINES_KEPT)
    conversation = Conversation(functools.partial(run.observer.on_input, name)) if tool.interactive else None
    on_stderr_line = _stderr_handler(run, conversation, stderr_lines)
    launch = launchers.launch_of(tool)
    if launch.in_worker:
        on_worker = functools.partial(
            workers.call,
            tool,
            run.script,
            run.arguments,
            timeout=max(run.remaining, 0.001),
            env=script_env(run.base_env, tool, run.script, None),  # a worker serves many calls
            limits=tool.limits,
            confinement=run.confinement,
            max_answer_bytes=run.stdout_limit,
            on_stderr_line=on_stderr_line,
        )
        if run.watch is not None:  # no spawn: a warm worker (its environment serves many calls)
            run.watch.process_started(None, run.confinement is not None)
        try:  # on a warm worker that imported the module once
            if conversation is None:
                answer = await on_worker()
            else:  # the module reads its answers from sys.stdin, as a script does
                answer = await conversation.run(
                    lambda input, more_input: on_worker(more_input=more_input), b""
                )
        except ProcessStartError as error:
            return ToolResult(text=f"Tool {name!r} could not start its worker: {error}.", is_error=True)
        return await result_from_answer(tool, answer, run.timeout, list(stderr_lines), run.files)
    env = script_env(run.base_env, tool, run.script, run.arguments)
    try:
        argv = launch.argv(run.script, tool, run.arguments)
    except ProcessStartError as error:
        return ToolResult(text=f"Tool {name!r} could not start: {error}.", is_error=True)
    on_started = run.on_started
    if run.watch is not None:
        context = run.watch.trace_context()  # {} unless tracing is on: the environment as it was
        if context:
            env = with_trace_context(env, context)
        on_started = timed_start(run.watch, run.confinement is not None, on_started)
    process = functools.partial(
        run_process,
        argv,
        timeout=max(run.remaining, 0.001),
        cwd=run.script.parent,
        env=env,
        stdout_limit=run.stdout_limit,
        on_stderr_line=on_stderr_line,
        limits=tool.limits,
        on_started=on_started,
        confinement=run.confinement,
    )
    try:
        if conversation is None:
            result = await process(input=launch.stdin(tool, run.arguments))
        else:  # the arguments as one line; stdin stays open for the answers
            result = await conversation.run(process, stdin_json(run.arguments) + b"\n")
    except ProcessStartError as error:
        return ToolResult(
            text=f"Tool {name!r} could not start: {error}."
            + ("" if error.about_arguments else f" {start_hint(run.script, argv[0])}"),
            is_error=True,
        )
    if run.watch is not None:
        run.watch.process_ended(result.returncode, result.timed_out, result.duration)
    return await result_from_process(tool, result, run.timeout, list(stderr_lines), run.files, run.script)


def _stderr_handler(
    run: ScriptRun, conversation: Conversation | None, kept: deque[str]
) -> Callable[[str], None]:
    """What becomes of each stderr line: an answer the conversation waits for, progress or
    a log line for the observer, else kept (the tail a failure's text ends with)."""
    name, observer, tail_logs = run.tool.name, run.observer, run.tail_logs

    def on_stderr_line(line: str) -> None:
        if conversation is not None and conversation.offer(line):
            return
        kind = classify_line(line)
        if isinstance(kind, ProgressLine):
            observer.on_progress(name, kind)
            return
        if isinstance(kind, LogLine):
            observer.on_log(name, kind)
            if not tail_logs:
                return
        kept.append(line[:STDERR_LINE_CHARS])

    return on_stderr_line
