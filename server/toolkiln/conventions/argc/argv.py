"""How an argc script gets its arguments: on argv, as argc reads them.

    script [command] --name=value --list=a --list=b --flag -- positional...

The command word first (the `@cmd` function the tool is), each option as
`--name=value` (so a value starting with `-` stays a value), an array as the option
repeated, a flag only when true, and the positionals in order after `--`. The script's
`argc --argc-eval` is toolkiln's shim (`runtimes/argc/`), first on its PATH.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkiln.conventions.words import text_words
from toolkiln.errors import ProcessStartError
from toolkiln.interpreters import runs_by_itself
from toolkiln.model import CompiledTool

# What an argc tool's `>> "$LLM_OUTPUT"` writes to (llm-functions' tools): its stdout,
# which is the call's result.
LLM_OUTPUT = "/dev/stdout"
_ARGC_NOT_FOUND = re.compile(r"\bargc: (?:command )?not found")


def argc_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    options: list[str] = []
    positionals: list[str] = []
    missing: str | None = None
    for param in tool.parameters:
        value = arguments.get(param.name)
        values = text_words(value)
        if param.option == "":
            if value is None:
                missing = missing or param.name
                continue
            if missing is not None:
                raise ProcessStartError(
                    f"argument {param.name!r} is positional, after {missing!r}: give {missing!r} too",
                    about_arguments=True,
                )
            positionals += values
        elif value is None or param.option is None:
            continue
        elif param.type == "boolean":
            options += [param.option] if value is True else []
        else:
            options += [f"{param.option}={item}" for item in values]
    runner = [] if runs_by_itself(script) and _shebang_program_exists(script) else ["bash"]
    command = [tool.command] if tool.command else []
    return [*runner, str(script), *command, *options, *(["--", *positionals] if positionals else [])]


def _shebang_program_exists(script: Path) -> bool:
    """Whether the program the shebang line names is there. An argc script is bash
    whatever its shebang says (argc's `--argc-eval` prints bash), and scripts written on
    Termux start `#!/data/data/com.termux/files/usr/bin/env bash`, which no other machine
    has: such a script runs with bash rather than not at all."""
    try:
        with script.open("rb") as handle:
            line = handle.readline(256)
    except OSError:
        return False
    words = line[2:].split()
    return bool(words) and os.access(os.fsdecode(words[0]), os.X_OK)


def argc_env(env: Mapping[str, str]) -> dict[str, str]:
    """What an argc script's environment adds: the shim first on PATH, the interpreter
    that runs it, and `LLM_OUTPUT`."""
    from toolkiln.runtimes.argc import SHIM_BIN

    path = env.get("PATH") or "/usr/local/bin:/usr/bin:/bin"
    return {
        "PATH": f"{SHIM_BIN}:{path}",
        "TOOLKILN_ARGC_PYTHON": sys.executable,
        "LLM_OUTPUT": LLM_OUTPUT,
    }


def argc_launch_env(env: dict[str, str], arguments: Mapping[str, Any] | None, script: Path) -> dict[str, str]:
    """The call's environment with `argc_env` set over it."""
    return {**env, **argc_env(env)}


def argc_runtime_missing(tool: CompiledTool, stderr: str) -> str | None:
    """Why the script did not reach toolkiln's argc shim: bash said `argc: not found` and,
    having evaluated nothing, the script went on as if given no arguments."""
    if not _ARGC_NOT_FOUND.search(stderr):
        return None
    from toolkiln.runtimes.argc import SHIM_BIN

    return (
        f"Tool {tool.name!r} could not run toolkiln's argc runtime ({SHIM_BIN / 'argc'}): the "
        "script's `argc --argc-eval` was not found, so it got none of its arguments. Check that "
        "the file is there (reinstall toolkiln) and that the script does not replace PATH."
    )
