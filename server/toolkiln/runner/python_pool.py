"""Warm worker processes for Python-module tools.

Each worker imports one tool's module once (`python_worker.py`) and then runs call
after call, one at a time: no interpreter start and no import per call. Workers are
separate processes, so a tool that crashes, leaks or hangs never takes the server
down. A worker that times out, is cancelled, crashes, runs out of memory or breaks
the answer protocol is stopped, and the next call starts a fresh one. A worker whose
module file changed since it started is replaced before it runs a call, and
`retire_all` (after a reload) replaces every one.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import ObjectReceiveStream

from toolkiln.model import CompiledTool, Limits
from toolkiln.process import Confinement, LineTooLong, LiveProcess, StderrLineHandler

logger = logging.getLogger(__name__)

WORKER_SCRIPT = Path(__file__).with_name("python_worker.py")
# How long a worker that closed its answers gets to exit before we read its status.
EXIT_WAIT_SECONDS = 1.0


@dataclass(frozen=True)
class WorkerAnswer:
    """What became of one call on a worker.

    `outcome` is "returned" (`value`), "raised" (`error_type`, `message`, `where`), "exited"
    (`exit_code`, from sys.exit), "crashed" (`exit_code`, negative for a signal, and
    `message`) or "timed_out".
    """

    outcome: str
    value: Any = None
    printed: str = ""  # what a `run(**)` function printed on stdout: part of its result
    error_type: str = ""
    message: str = ""
    where: str = ""  # "tool.py, line 9, in helper": the place in the tool's own file it raised
    exit_code: int | None = None
    duration: float = 0.0
    stderr_tail: str = ""
    during_import: bool = False


@dataclass
class _Worker:
    process: LiveProcess
    tool: str
    source: tuple[int, int]  # the module's (mtime_ns, size) when the worker imported it
    generation: int
    calls: int = 0


class PythonWorkers:
    """The warm workers of every Python tool, at most `max_idle` of them kept waiting."""

    def __init__(self, max_idle: int) -> None:
        self.max_idle = max_idle
        self._idle: OrderedDict[int, _Worker] = OrderedDict()  # by pid, least recently used first
        self._generation = 0

    def retire_all(self) -> None:
        """Replace every worker before its next call (the tools were rebuilt or reloaded)."""
        self._generation += 1

    async def close(self) -> None:
        """Stop every waiting worker."""
        while self._idle:
            _, worker = self._idle.popitem()
            await worker.process.stop()

    async def call(
        self,
        tool: CompiledTool,
        script: Path,
        arguments: Mapping[str, Any],
        *,
        timeout: float,
        env: Mapping[str, str],
        limits: Limits | None,
        confinement: Confinement | None = None,
        max_answer_bytes: int,
        on_stderr_line: StderrLineHandler | None,
        more_input: ObjectReceiveStream[bytes] | None = None,
    ) -> WorkerAnswer:
        """Run one call of `tool` on a warm worker (started if none is waiting).

        `more_input` (an interactive tool's answers) goes to the worker's stdin while the
        call runs, where the module reads it. Raises `ProcessStartError` when no worker
        can be started at all.
        """
        started = time.perf_counter()
        worker: _Worker | None = None
        answer: WorkerAnswer | None = None
        try:
            with anyio.move_on_after(timeout):
                worker = await self._take(tool, script, env, limits, confinement)
                if worker.calls == 0:  # a new worker says it imported the module, or why not
                    answer = await self._read_answer(worker, max_answer_bytes, on_stderr_line, started)
                    if answer.outcome != "ready":
                        answer = replace(answer, during_import=True)
                if answer is None or answer.outcome == "ready":
                    request = json.dumps({"params": dict(arguments)}, ensure_ascii=False).encode() + b"\n"
                    await self._send(worker, request)
                    async with anyio.create_task_group() as forwarding:
                        if more_input is not None:
                            forwarding.start_soon(self._forward, worker, more_input)
                        answer = await self._read_answer(worker, max_answer_bytes, on_stderr_line, started)
                        forwarding.cancel_scope.cancel()
            if answer is None or answer.outcome == "ready":  # a new worker said it was ready, no more
                answer = WorkerAnswer("timed_out", duration=time.perf_counter() - started)
        finally:
            if worker is not None:
                await self._release(worker, answer)
        return answer

    async def _take(
        self,
        tool: CompiledTool,
        script: Path,
        env: Mapping[str, str],
        limits: Limits | None,
        confinement: Confinement | None,
    ) -> _Worker:
        source = _source_of(script)
        pid = next((pid for pid, worker in reversed(self._idle.items()) if worker.tool == tool.name), None)
        if pid is not None:
            worker = self._idle.pop(pid)
            if worker.source == source and worker.generation == self._generation:
                return worker
            logger.info("%s changed: its worker %d is replaced", tool.name, pid)
            await worker.process.stop()
        argv = [sys.executable, str(WORKER_SCRIPT), str(script), tool.python_entry or "execute"]
        argv += [tool.command] if tool.command else []  # one of the module's functions (an agent's tools.py)
        process = LiveProcess(argv, cwd=script.parent, env=env, limits=limits, confinement=confinement)
        return _Worker(process, tool.name, source, self._generation)

    async def _forward(self, worker: _Worker, chunks: ObjectReceiveStream[bytes]) -> None:
        async for chunk in chunks:
            await self._send(worker, chunk)

    async def _send(self, worker: _Worker, request: bytes) -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # it died: its answer says how
            await worker.process.send(request)

    async def _read_answer(
        self, worker: _Worker, limit: int, on_stderr_line: StderrLineHandler | None, started: float
    ) -> WorkerAnswer:
        try:
            line = await worker.process.read_line(limit, on_stderr_line)
        except LineTooLong as error:
            return WorkerAnswer(
                "crashed", message=f"it wrote {error}", duration=time.perf_counter() - started
            )
        duration = time.perf_counter() - started
        if line is None:
            code = await worker.process.wait(EXIT_WAIT_SECONDS)
            return WorkerAnswer(
                "crashed", exit_code=code, duration=duration, stderr_tail=worker.process.stderr_tail
            )
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            return WorkerAnswer("crashed", message="its answer was not JSON", duration=duration)
        if message.get("ready"):
            return WorkerAnswer("ready")
        if "returned" in message:
            printed = message.get("printed")
            return WorkerAnswer(
                "returned",
                value=message["returned"],
                printed=printed if isinstance(printed, str) else "",
                duration=duration,
            )
        if "exited" in message:
            return WorkerAnswer("exited", exit_code=message["exited"], duration=duration)
        if message.get("traceback"):
            # For the server's log (serve logs at info), never for the client; `toolkiln call`
            # shows it with -v: its result already says the exception, once.
            logger.info("tool %s raised:\n%s", worker.tool, message["traceback"].rstrip())
        where = message.get("where")
        return WorkerAnswer(
            "raised",
            error_type=message.get("raised", ""),
            message=message.get("message", ""),
            where=where if isinstance(where, str) else "",
            duration=duration,
        )

    async def _release(self, worker: _Worker, answer: WorkerAnswer | None) -> None:
        """Keep a worker that answered normally for the next call; stop any other."""
        healthy = (
            answer is not None
            and not answer.during_import
            and answer.outcome in ("returned", "raised", "exited")
            and answer.error_type != "MemoryError"
            and worker.process.returncode is None
        )
        if not healthy:
            await worker.process.stop()
            return
        worker.calls += 1
        self._idle[worker.process.pid] = worker
        while len(self._idle) > self.max_idle:
            _, oldest = self._idle.popitem(last=False)
            await oldest.process.stop()


def _source_of(script: Path) -> tuple[int, int]:
    try:
        stat = os.stat(script)
    except OSError:
        return (0, 0)
    return (stat.st_mtime_ns, stat.st_size)
