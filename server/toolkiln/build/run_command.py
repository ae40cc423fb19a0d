"""Stage 2, for the built-in `run_command` tool: its compiled entry, from `config/server.json`.

The tool has no script: build makes its entry (name, description, schema, hints,
timeout, limits) from the settings, and the runner's `runner/command.py` runs it
with the settings the catalog keeps.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from toolkiln.files import SERVER_CONFIG_FILE
from toolkiln.model import (
    CompiledRunCommand,
    CompiledTool,
    ConfinementSettings,
    Parameter,
    RunCommandSettings,
    ServerConfig,
    ToolHints,
)
from toolkiln.schema import parameters_to_schema
from toolkiln.writable import RUN_COMMAND_WRITER, WritableFolder, config_writable_folders

MAX_COMMAND_CHARS = 32768


def compile_run_command(
    server: ServerConfig, config_dir: Path, tools: list[CompiledTool], errors: list[str], warnings: list[str]
) -> CompiledTool | None:
    """The `run_command` tool when config/server.json turns it on, else None.

    A script tool in `tools` with the same name is an error naming both files.
    """
    settings = server.run_command
    if not settings.enabled:
        return None
    source = config_dir / SERVER_CONFIG_FILE
    for tool in tools:
        if tool.name == settings.name:
            errors.append(
                f"{source}: run_command.name {settings.name!r} is also the name of the tool in "
                f"{config_dir / tool.config_file}; set a different run_command.name, or a different "
                "script_config.name in that file"
            )
    warnings += [f"{source}: {warning}" for warning in _warnings(settings, config_dir)]
    parameters = run_command_parameters()
    return CompiledTool(
        name=settings.name,
        title="Run a command",
        description=_description(settings),
        dialect="command",
        script_path="",
        script_type="builtin",
        parameters=parameters,
        input_schema=parameters_to_schema(parameters),
        hints=ToolHints(read_only=False, destructive=True, idempotent=False, open_world=True),
        requires_confirmation=settings.requires_confirmation,
        timeout_seconds=settings.timeout_seconds,
        limits=settings.limits.over(server.limits),
        config_file=SERVER_CONFIG_FILE,
    )


def run_command_parameters() -> list[Parameter]:
    """The arguments of `run_command` (seeds/001): command, workdir, stdin."""
    return [
        Parameter(
            name="command",
            description="The command line: the program and its arguments, e.g. `ls -la src`.",
            required=True,
            min=1,
            max=MAX_COMMAND_CHARS,
        ),
        Parameter(
            name="workdir",
            description="The working directory: inside one of the allowed roots; "
            "a relative path is taken from the first root, which is also the default.",
        ),
        Parameter(name="stdin", description="Text to give the command on its standard input."),
    ]


def project_roots(settings: RunCommandSettings, config_dir: Path) -> list[Path]:
    """The roots as absolute paths: config/server.json gives them from the project folder,
    the one that holds the config folder."""
    project = config_dir.resolve().parent
    return [project / root for root in settings.roots]  # an absolute root stays itself


def catalog_run_command(
    settings: RunCommandSettings,
    config_dir: Path,
    tools_dir: Path,
    errors: list[str],
    server_confinement: ConfinementSettings,
) -> CompiledRunCommand:
    """The settings as the catalog keeps them: roots relative to its folder (so it can move),
    and every folder a tool may write. A root that lies inside one is an error."""
    writable = tool_writable_folders(config_dir, tools_dir)
    roots = project_roots(settings, config_dir)
    for root, given in zip(roots, settings.roots, strict=True):
        real = root.resolve()
        for folder in writable:
            if real.is_relative_to(Path(folder.path).resolve()):
                errors.append(
                    f"{config_dir / SERVER_CONFIG_FILE}: run_command.roots: {given!r} ({real}) lies inside "
                    f"{folder.describe()}; run_command never works where a tool "
                    "writes (it could plant a program or a git config there): choose another root"
                )
    roots_seen = [_relative(root, config_dir) for root in roots]
    folders = sorted({_relative(Path(folder.path), config_dir) for folder in writable})
    fields = {
        **dict(settings),
        "roots": roots_seen,
        "tool_writable": folders,
        "confinement": settings.confinement.over(server_confinement),
    }
    return CompiledRunCommand(**fields)


def tool_writable_folders(config_dir: Path, tools_dir: Path) -> list[WritableFolder]:
    """Each folder a script tool may write (`writable.py`: every tool's workspace and
    `confinement.writable` folders, enabled or not), with who says so."""
    return [f for f in config_writable_folders(config_dir, tools_dir) if f.writer != RUN_COMMAND_WRITER]


def _relative(path: Path, start: Path) -> str:
    """`path` as seen from `start` (relative when possible, so a project can move)."""
    try:
        return Path(os.path.relpath(path.resolve(), start.resolve())).as_posix()
    except ValueError:  # another drive
        return str(path.resolve())


def _warnings(settings: RunCommandSettings, config_dir: Path) -> list[str]:
    warnings = []
    if not settings.allow:
        warnings.append(
            "run_command is enabled but run_command.allow is empty: every command will be refused"
        )
    for program in settings.allow:
        if not (shutil.which(program) if "/" not in program else os.access(program, os.X_OK)):
            warnings.append(
                f"run_command.allow: {program!r} is not an executable program here "
                "(the server looks for it again at each call)"
            )
        if program in settings.deny:
            warnings.append(f"run_command.allow: {program!r} is also in run_command.deny, which wins")
    for root in project_roots(settings, config_dir):
        if not root.is_dir():
            warnings.append(f"run_command.roots: {root} is not a folder")
    return warnings


def _description(settings: RunCommandSettings) -> str:
    """What the model reads: what is allowed, and how the command is taken."""
    lines = ["Run one command on this machine; the result gives its exit code, stdout and stderr."]
    if settings.allow:
        lines.append(f"Allowed programs: {', '.join(settings.allow)}. Others are refused.")
        for program, patterns in sorted(settings.allow_args.items()):
            lines.append(
                f"{program}: its arguments, joined by single spaces, must match one of these "
                f"regular expressions in full: {json.dumps(patterns)}"
            )
    else:
        lines.append("No program is allowed yet: every command is refused.")
    if settings.shell:
        lines.append(
            "The command runs in /bin/sh, limited to plain commands joined by | && || ; with < > >> "
            "to files and 2>&1: the first word of each must be an allowed program. Variables, globs, "
            "~, braces, $(...), backticks, comments, newlines, & and assignments are refused; "
            "quote special characters in single quotes."
        )
    else:
        lines.append(
            "There is no shell: the command is split into words as a shell would (quotes work) and "
            "the first word is the program; | ; & > < $(...) and * reach it as plain text."
        )
    lines.append(
        f"workdir, and every file an argument names, must lie inside one of these folders of the "
        f"project: {', '.join(settings.roots)} (the default workdir is the first), and not in a "
        "tool's workspace."
    )
    lines.append(f"A command is stopped after {settings.timeout_seconds:g} s.")
    return "\n".join(lines)
