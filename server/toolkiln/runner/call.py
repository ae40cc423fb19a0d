"""Run one tool call: check the arguments, run the script, turn its output into a result.

The server and `toolkiln call` both come through here, so a tool behaves the same
from the command line as from an MCP client.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import anyio

from toolkiln.dotenv_file import EnvFile, secrets_for
from toolkiln.errors import ProcessStartError, ToolRunError
from toolkiln.model import CompiledTool
from toolkiln.process import Confinement, run_process
from toolkiln.runner.call_script import STDERR_LINES_KEPT, ScriptRun, run_script
from toolkiln.runner.call_watch import CALL_WATCH, CallWatch
from toolkiln.runner.confinement import (
    ConfinementRefused,
    command_confinement,
    confined_env,
    confinement_for,
)
from toolkiln.runner.environment import base_env, script_env
from toolkiln.runner.limits import output_limit
from toolkiln.runner.named_files import FileFence, tool_fence
from toolkiln.runner.observer import CallObserver, LoggingObserver
from toolkiln.runner.outcome import result_from_process
from toolkiln.runner.python_pool import PythonWorkers
from toolkiln.runner.registry import OutsideFolderError, Registry
from toolkiln.runner.result import ToolResult
from toolkiln.runner.slots import CallSlots
from toolkiln.runner.workspace import WorkspaceError, resolve_path
from toolkiln.schema import prepare_arguments
from toolkiln.state_dir import default_state_dir

DEFAULT_TIMEOUT = 60.0
# A result must fit one message of every client: the SDK refuses an SSE event over 1 MiB,
# and a JSON stdout is sent twice (text and structuredContent), escaped.
DEFAULT_MAX_OUTPUT = 256 * 1024
DEFAULT_MAX_CONCURRENCY = 2 * (os.cpu_count() or 1)


@dataclass(frozen=True)
class RunSettings:
    """What the server (or `toolkiln call`) decides for every call."""

    default_timeout: float = DEFAULT_TIMEOUT
    max_output_bytes: int = DEFAULT_MAX_OUTPUT
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    # Env vars every script gets: the seeds/000 server variables, their TOOLKILN_*
    # twins and the `--script-config KEY=VALUE` values.
    env: Mapping[str, str] = field(default_factory=dict)
    # Folders no confined tool may see (besides toolkiln's state folder, with its token).
    hidden: tuple[str, ...] = ()
    # The folder's `.env`: each tool gets the values its config names (dotenv_file.py).
    env_file: EnvFile | None = None
    # How toolkiln's own hints in a failed call's text are worded (hint_words.for_folder
    # for a folder served as DIR: `toolkiln build DIR`, the real config paths).
    hints: Callable[[str], str] | None = None


class ToolRunner:
    """Runs calls of the registry's tools: argument checks, concurrency slots, the process.

    At most `settings.max_concurrency` tool processes run at once, and at most a
    tool's own `max_concurrency`; a call beyond a cap waits for a slot, and the wait
    counts against its timeout.
    """

    def __init__(self, registry: Registry, settings: RunSettings) -> None:
        self.registry = registry
        self.settings = settings
        self._env = base_env(settings.env)
        self._hidden = (str(default_state_dir()), *settings.hidden)
        self._slots = CallSlots(settings.max_concurrency)
        self.python_workers = PythonWorkers(max_idle=settings.max_concurrency)
        self._fences: dict[str, tuple[CompiledTool, Path, FileFence]] = {}

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        observer: CallObserver | None = None,
        on_started: Callable[[], None] | None = None,
        *,
        tail_logs: bool = True,
    ) -> ToolResult:
        """Run tool `name`. Raises `UnknownToolError`; every other failure is a result.
        `on_started` runs once the script's process does (see `run_process`).

        A failure's text ends with the script's stderr tail; `tail_logs=False` leaves the
        log lines out of it, for a caller whose observer has shown them to the same
        reader already (`toolkiln call`), so no line is shown twice."""
        watch = CALL_WATCH.get()
        if watch is None:
            result = await self._call(name, arguments, observer, on_started, tail_logs)
        else:
            watch.call_started(name)
            try:
                result = await self._call(name, arguments, observer, on_started, tail_logs, watch)
            except BaseException:
                watch.call_ended(None)
                raise
            watch.call_ended(result.is_error)
        if result.is_error and self.settings.hints is not None:
            return replace(result, text=self.settings.hints(result.text))
        return result

    async def _call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        observer: CallObserver | None,
        on_started: Callable[[], None] | None,
        tail_logs: bool,
        watch: CallWatch | None = None,
    ) -> ToolResult:
        tool = self.registry.get(name)
        try:  # inside the tools folder, or never run: checked once, the path used throughout
            script = self.registry.script_path(tool) if tool.script_path else None
        except OutsideFolderError as error:
            return ToolResult(text=f"Tool {name!r} cannot run: {error}", is_error=True)
        arguments = dict(arguments or {})
        problems = self.registry.checker(tool).problems(arguments)
        if problems:
            listing = "\n".join(f"- {problem}" for problem in problems)
            return ToolResult(text=f"Invalid arguments for tool {name!r}:\n{listing}", is_error=True)
        arguments = prepare_arguments(tool.input_schema, arguments)
        refusals = self._sandbox(tool, arguments, script)
        if refusals:
            listing = "\n".join(f"- {refusal}" for refusal in refusals)
            return ToolResult(text=f"Refused by the workspace of tool {name!r}:\n{listing}", is_error=True)
        timeout = tool.timeout_seconds or self.settings.default_timeout
        deadline = anyio.current_time() + timeout
        async with self._slots.hold(tool, timeout) as free:
            if watch is not None:
                watch.slot_taken(timeout - (deadline - anyio.current_time()), free)
            if not free:
                return ToolResult(
                    text=f"Tool {name!r} timed out after {timeout:g} s waiting for a free slot "
                    f"(at most {self.settings.max_concurrency} tool processes run at once).",
                    is_error=True,
                )
            remaining = deadline - anyio.current_time()
            observer = observer or LoggingObserver()
            return await self._run(
                tool, script, arguments, remaining, timeout, observer, on_started, tail_logs, watch
            )

    def _sandbox(self, tool: CompiledTool, arguments: dict[str, Any], script: Path | None) -> list[str]:
        """Resolve the `path` arguments in place; what the workspace refuses, as sentences."""
        refusals = []
        for param in tool.parameters:
            if param.kind == "path" and isinstance(arguments.get(param.name), str):
                tool_dir = (script or self.registry.script_path(tool)).parent
                try:
                    arguments[param.name] = resolve_path(arguments[param.name], tool.workspace, tool_dir)
                except WorkspaceError as error:
                    refusals.append(f"{param.name}: {error}")
        return refusals

    async def _run(
        self,
        tool: CompiledTool,
        script: Path | None,
        arguments: dict[str, Any],
        remaining: float,
        timeout: float,
        observer: CallObserver,
        on_started: Callable[[], None] | None = None,
        tail_logs: bool = True,
        watch: CallWatch | None = None,
    ) -> ToolResult:
        name = tool.name
        if tool.dialect == "command":  # the built-in run_command: no script, config/server.json's fences
            from toolkiln.runner.command import run_command_tool

            settings, base_dir = self.registry.catalog.run_command, self.registry.catalog_file.parent
            try:
                confinement = (
                    None
                    if settings is None
                    else command_confinement(
                        name,
                        settings,
                        base_dir,
                        self._hidden,
                        self.registry.writable_folders(),
                        self.registry.tools_dir,
                    )
                )
            except ConfinementRefused as error:
                return ToolResult(text=str(error), is_error=True)
            env = self._env
            if settings is not None and confinement is not None:
                env = confined_env(env, settings.confinement, self.settings.env)
            return await run_command_tool(
                tool,
                arguments,
                settings=settings,
                base_dir=base_dir,
                env=env,
                confinement=confinement,
                max_output=self.settings.max_output_bytes,
                remaining=remaining,
                timeout=timeout,
                observer=observer,
            )
        if script is None:  # no script_path: what script_path says of it
            script = self.registry.script_path(tool)
        try:
            confinement, base = self._confinement(tool, script)
        except ConfinementRefused as error:
            return ToolResult(text=str(error), is_error=True)
        run = ScriptRun(
            tool=tool,
            script=script,
            arguments=arguments,
            confinement=confinement,
            base_env=base,
            remaining=remaining,
            timeout=timeout,
            stdout_limit=output_limit(tool.limits, self.settings.max_output_bytes),
            files=self._files(tool, script),
            observer=observer,
            on_started=on_started,
            tail_logs=tail_logs,
            watch=watch,
        )
        return await run_script(run, self.python_workers)

    async def close(self) -> None:
        """Stop the warm workers (the processes of running calls stop with their calls)."""
        await self.python_workers.close()

    async def read_state(self, name: str) -> ToolResult:
        """Run a stateful tool's `script --state` (seeds/000): no arguments, stdin closed."""
        tool = self.registry.get(name)
        if not tool.state:
            raise ToolRunError(f"tool {name!r} keeps no state")
        try:
            script = self.registry.script_path(tool)
        except OutsideFolderError as error:
            return ToolResult(text=f"Tool {name!r} cannot run: {error}", is_error=True)
        timeout = tool.timeout_seconds or self.settings.default_timeout
        try:
            confinement, base = self._confinement(tool, script)
        except ConfinementRefused as error:
            return ToolResult(text=str(error), is_error=True)
        try:
            result = await run_process(
                [str(script), "--state"],
                timeout=timeout,
                cwd=script.parent,
                env=script_env(base, tool, script, None),
                stdout_limit=output_limit(tool.limits, self.settings.max_output_bytes),
                limits=tool.limits,
                confinement=confinement,
            )
        except ProcessStartError as error:
            return ToolResult(text=f"Tool {name!r} could not start: {error}.", is_error=True)
        return await result_from_process(
            tool,
            result,
            timeout,
            result.stderr_text.splitlines()[-STDERR_LINES_KEPT:],
            self._files(tool, script),
        )

    def _confinement(self, tool: CompiledTool, script: Path) -> tuple[Confinement | None, Mapping[str, str]]:
        """How a run of `tool` is confined, and the environment it starts from (scrubbed
        when confined); `ConfinementRefused` when it must be confined and cannot."""
        others = self.registry.writable_folders()
        confinement = confinement_for(tool, script.parent, self._hidden, self.registry.tools_dir, others)
        base = (
            self._env if confinement is None else confined_env(self._env, tool.confinement, self.settings.env)
        )
        secrets = self.settings.env_file.values() if self.settings.env_file is not None else None
        if secrets:  # the server's own environment wins, as dotenv's convention is
            named = secrets_for(secrets, tool.env_reads, tool.confinement.pass_env or ())
            base = {**named, **base} if named else base
        return confinement, base

    def _files(self, tool: CompiledTool, script: Path) -> FileFence:
        """Where the files the tool's output names may be: its workspace (runner/named_files.py),
        made once per tool (object: a rebuilt catalog's are new) and script."""
        known = self._fences.get(tool.name)
        if known is None or known[0] is not tool or known[1] != script:
            config = self.registry.catalog_file.parent / tool.config_file
            fence = tool_fence(tool.workspace, script.parent, config)
            known = self._fences[tool.name] = (tool, script, fence)
        return known[2]
