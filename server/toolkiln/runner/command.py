"""The built-in `run_command` tool (seeds/001): one command line, fenced by config/server.json.

Before anything runs, the command is planned: split into words with shlex, or, with
`shell` on, read with a shell grammar (`command_shell`); each program looked up and
checked against `allow` and `deny`, its arguments against `allow_args` and the path
fence (`command_fence`: files only inside the roots, never in a folder a tool may
write), its working directory against the same fence. A command that fails a check
is refused with a sentence that says which check and how to allow it. git runs
hardened (`command_git`). What is admitted runs through `process.run_process` like any
script: in its own process group, with the timeout, the output cap and the tool's
rlimits, and its stderr lines become logs and progress.

Programs are compared as files, not as spellings: a name is looked up on PATH, and a
command's program matches an `allow` entry only when both lead to the same file (every
symlink followed) under the same name, so `/usr/bin/../bin/rm` or a symlink named
`ls` that points at `rm` is not `ls`. The same name matters for multi-call programs
(busybox): `ls` and `rm` may be one file that acts on the name it was started as.
The program that runs is the `allow` entry's own path, not the command's spelling.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import shlex
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkiln.errors import ProcessStartError
from toolkiln.model import CompiledRunCommand, CompiledTool, RunCommandSettings
from toolkiln.process import Confinement, run_process
from toolkiln.runner.command_fence import (
    SETTINGS_FILE,
    CommandRefused,
    PathFence,
    check_encodable,
    check_path_arguments,
    resolve_workdir,
)
from toolkiln.runner.command_git import check_git_arguments, check_repository, harden_git, is_git
from toolkiln.runner.command_result import command_result, forward_stderr
from toolkiln.runner.command_shell import ShellLine, parse_shell_line, render_shell_line
from toolkiln.runner.limits import output_limit
from toolkiln.runner.result import ToolResult

if TYPE_CHECKING:
    from toolkiln.runner.observer import CallObserver

logger = logging.getLogger(__name__)

SHELL = "/bin/sh"
# The end of stderr that is kept (the start of stdout is kept, up to the output cap).
STDERR_LIMIT = 64 * 1024

__all__ = ["CommandPlan", "CommandRefused", "plan_command", "prepare_command", "run_command_tool"]


@dataclass(frozen=True)
class CommandPlan:
    """What will run, checked: each simple command's argv (its program as the `allow`
    entry's path), the working directory, and in shell mode the line they came from."""

    commands: list[list[str]]
    workdir: str
    shell: ShellLine | None = None


@dataclass(frozen=True)
class _Program:
    """A program as a command names it, and the file that is."""

    name: str  # the name it is started as (the last part of how it was given)
    path: str  # the path that would be executed (PATH searched, symlinks kept)
    real: str  # that path with every symlink followed


_Locate = Callable[[str, str], "_Program | None"]  # (name, cwd): see _locate


async def run_command_tool(
    tool: CompiledTool,
    arguments: Mapping[str, Any],
    *,
    settings: CompiledRunCommand | None,
    base_dir: Path,
    env: Mapping[str, str],
    max_output: int,
    remaining: float,
    timeout: float,
    observer: CallObserver,
    confinement: Confinement | None = None,
) -> ToolResult:
    """Run one `run_command` call; every refusal and failure is a result, never an exception.

    `base_dir` is the catalog's folder (the compiled roots are relative to it), `env`
    the server's base environment (its PATH is where programs are looked up), and
    `max_output` the server's output cap, which the tool's own limit replaces.
    """
    command = str(arguments["command"])
    if settings is None:
        return ToolResult(
            text=f"Tool {tool.name!r} is a run_command tool but the catalog has no run_command "
            "settings; run `toolkiln build` again.",
            is_error=True,
        )
    env = _with_absolute_path(env)
    fence = PathFence.from_catalog(settings.roots, settings.tool_writable, base_dir)
    try:
        plan = plan_command(
            settings, command, arguments.get("workdir"), fence=fence, search_path=env.get("PATH")
        )
        argv, env = await prepare_command(plan, fence, env)
    except CommandRefused as refusal:
        logger.info("%s refused %r: %s", tool.name, command, refusal)
        return ToolResult(text=f"Refused: {refusal}", is_error=True)
    logger.info("%s runs %s in %s", tool.name, argv, plan.workdir)
    stdin = arguments.get("stdin")
    stdout_limit = output_limit(tool.limits, max_output)
    try:
        result = await run_process(
            argv,
            timeout=max(remaining, 0.001),
            cwd=plan.workdir,
            env=env,
            confinement=confinement,
            input=stdin.encode("utf-8", errors="replace") if isinstance(stdin, str) else None,
            stdout_limit=stdout_limit,
            stderr_limit=min(STDERR_LIMIT, stdout_limit),
            on_stderr_line=forward_stderr(tool.name, observer),
            limits=tool.limits,
        )
    except ProcessStartError as error:
        return ToolResult(text=f"Command could not start: {error}", is_error=True)
    return command_result(tool, command, plan.workdir, result, timeout)


def plan_command(
    settings: RunCommandSettings,
    command: str,
    workdir: str | None,
    *,
    fence: PathFence,
    search_path: str | None,
) -> CommandPlan:
    """The checked commands and working directory of `command`, or `CommandRefused`."""
    if not settings.allow:
        raise CommandRefused(
            f"run_command allows no program yet. To allow some, list them in run_command.allow "
            f'in {SETTINGS_FILE} (e.g. "allow": ["ls", "cat"]) and run `toolkiln build`.'
        )
    check_encodable("command", command)
    cwd = resolve_workdir(fence, workdir)
    # Programs are looked up at each call (PATH may change), once each per call: a shell
    # line of several commands checks each against every allow and deny entry.
    locate: _Locate = functools.cache(functools.partial(_locate, search_path=search_path))
    if settings.shell:
        line = parse_shell_line(command)
        commands = [_check_command(settings, fence, shell.words, cwd, locate) for shell in line.commands]
        for shell in line.commands:
            for redirection in shell.redirections:
                if redirection.file is not None:
                    _check_redirection(fence, redirection.file, redirection.kind, cwd)
        return CommandPlan(commands, cwd, line)
    try:
        words = shlex.split(command)
    except ValueError as error:
        raise CommandRefused(f"cannot split the command into words: {error}") from None
    if not words:
        raise CommandRefused("the command is empty")
    return CommandPlan([_check_command(settings, fence, words, cwd, locate)], cwd)


async def prepare_command(
    plan: CommandPlan, fence: PathFence, env: Mapping[str, str]
) -> tuple[list[str], Mapping[str, str]]:
    """The argv and environment that run `plan`: git hardened, a shell line rebuilt."""
    argvs = []
    for argv in plan.commands:
        if is_git(os.path.realpath(argv[0])):
            argv, env = await harden_git(argv[0], argv[1:], cwd=plan.workdir, env=env, fence=fence)
        argvs.append(argv)
    if plan.shell is None:
        return argvs[0], env
    return [SHELL, "-c", render_shell_line(plan.shell, argvs)], env


def _check_command(
    settings: RunCommandSettings, fence: PathFence, words: list[str], cwd: str, locate: _Locate
) -> list[str]:
    """The argv that runs `words`: the program checked against allow and deny, the
    arguments against allow_args and the fence (and git's own rules)."""
    program = _check_program(settings, words, cwd, locate)
    check_path_arguments(fence, words[0], words[1:], cwd)
    if is_git(os.path.realpath(program)):
        check_git_arguments(words[1:])
        check_repository(fence, cwd)
    return [program, *words[1:]]


def _check_redirection(fence: PathFence, file: str, kind: str, cwd: str) -> None:
    real = os.path.realpath(os.path.join(cwd, file))
    why = fence.why_not(real)
    if why is not None:
        raise CommandRefused(f"the redirection {kind} {file!r} leads to {real}, {why}")
    if kind != "<" and ".git" in Path(real).parts:
        raise CommandRefused(f"the redirection {kind} {file!r} writes inside a git folder ({real})")


def _check_program(settings: RunCommandSettings, words: list[str], cwd: str, locate: _Locate) -> str:
    """The path to run for `words` (a program and its arguments), or `CommandRefused`."""
    name = words[0]
    requested = locate(name, cwd)
    denied = _denied_by(settings, name, requested, locate)
    if denied is not None:
        raise CommandRefused(f"{name!r} is denied by run_command.deny ({denied!r}) in {SETTINGS_FILE}")
    if requested is None:
        raise CommandRefused(
            f"{name!r} is not an executable program here (looked up on PATH); "
            f"allowed programs: {', '.join(settings.allow)}"
        )
    for entry in settings.allow:
        allowed = locate(entry, "/")
        if allowed is not None and (allowed.real, allowed.name) == (requested.real, requested.name):
            _check_arguments(settings, entry, words[1:])
            return allowed.path
    for entry in settings.allow:
        allowed = locate(entry, "/")
        if allowed is not None and allowed.name == requested.name:
            raise CommandRefused(
                f"{name!r} is the file {requested.real}, not the {entry!r} that run_command.allow "
                f"means ({allowed.real}); give the program by its name"
            )
    raise CommandRefused(
        f"{name!r} is not in run_command.allow (allowed: {', '.join(settings.allow)}); "
        f"to allow it, add it to run_command.allow in {SETTINGS_FILE} and run `toolkiln build`"
    )


def _denied_by(
    settings: RunCommandSettings, name: str, requested: _Program | None, locate: _Locate
) -> str | None:
    """The `deny` entry that refuses the program: by its name, or by being the same file.

    A deny entry that is itself another name of a multi-call file (`env` as busybox)
    refuses by name only, or it would refuse every name of that file.
    """
    for entry in settings.deny:
        if os.path.basename(entry) == os.path.basename(name):
            return entry
        denied = locate(entry, "/")
        if (
            requested is not None
            and denied is not None
            and denied.real == requested.real
            and os.path.basename(denied.real) == denied.name
        ):
            return entry
    return None


def _check_arguments(settings: RunCommandSettings, entry: str, arguments: list[str]) -> None:
    patterns = settings.allow_args.get(entry)
    if patterns is None:
        return
    text = " ".join(arguments)
    if not any(re.fullmatch(pattern, text) for pattern in patterns):
        raise CommandRefused(
            f"the arguments of {entry} ({text!r}) match none of run_command.allow_args[{entry!r}] "
            f"in {SETTINGS_FILE}: {patterns}"
        )


def _with_absolute_path(env: Mapping[str, str]) -> Mapping[str, str]:
    """`env` with only the absolute folders of its PATH: a relative one (or an empty one, which
    means `.`) would find programs in the working directory, where a command may have put them."""
    search_path = env.get("PATH")
    if search_path is None:
        return env
    folders = [folder for folder in search_path.split(os.pathsep) if os.path.isabs(folder)]
    return {**env, "PATH": os.pathsep.join(folders)}


def _locate(name: str, cwd: str, *, search_path: str | None) -> _Program | None:
    """The executable file that `name` starts (a path, or a name looked up on PATH)."""
    if "/" in name:
        path = os.path.join(cwd, name)  # an absolute name stays itself
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            return None
    else:
        found = shutil.which(name, path=search_path)
        if found is None:
            return None
        path = found if os.path.isabs(found) else os.path.join(os.getcwd(), found)
    return _Program(name=os.path.basename(name), path=path, real=os.path.realpath(path))
