"""How a sidecar tool runs: its command line (only the arguments its sidecar's `argv`
places there), and the environment of mcp-bash-framework's tool SDK, so that a
`tool.sh` that does `source "${MCP_SDK}/tool-sdk.sh"` runs unmodified on toolkiln's
own compatible runtime (`toolkiln/runtimes/mcp_bash/`)."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from toolkiln.conventions.words import option_word, plain_values, text_words
from toolkiln.interpreters import find_interpreter, interpreter_names, runs_by_itself
from toolkiln.model import CompiledTool

MCP_SDK = Path(__file__).resolve().parents[2] / "runtimes" / "mcp_bash"
# Above this, the arguments are not put in the environment (a variable over 128 KiB
# cannot start a program): the SDK reads them from stdin instead, as mcp-bash spills
# them to a file.
ARGS_ENV_LIMIT = 64 * 1024
_RUNTIME_PREFIXES = ("MCP_", "MCPBASH_")
_SDK_NOT_FOUND = re.compile(r"tool-sdk\.sh: No such file or directory")


def sidecar_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    """The program (by its interpreter when it cannot run by itself), then the options
    and positionals its sidecar's `argv` names, in that order. Each value is one word:
    `--name=value` for a long option, `-nvalue` for a short one, the value itself for a
    positional (refused when it starts with `-`, as it would pose as an option)."""
    words: list[str] = []
    for param in tool.parameters:
        if param.option is None or param.name not in arguments:
            continue
        value = arguments[param.name]
        if param.option and param.type == "boolean":
            words += [param.option] if value is True else []
            continue
        values = text_words(value)
        if param.option == "":
            words += plain_values(param.name, values)
        else:
            words += [option_word(param.option, item) for item in values]
    return [*_program(script), *words]


def _program(script: Path) -> list[str]:
    """By its shebang; else by the interpreter for its extension (`x.py` without a
    shebang runs with Python); else by itself (a binary)."""
    if runs_by_itself(script):
        return [str(script)]
    command = find_interpreter(script)
    if command is None and os.access(script, os.X_OK):
        return [str(script)]
    return [*(command or interpreter_names(script)[:1]), str(script)]


def sidecar_env(env: dict[str, str], arguments: Mapping[str, Any] | None, script: Path) -> dict[str, str]:
    """`env` with the variables mcp-bash's SDK reads, and no other `MCP_*`/`MCPBASH_*`:
    neither the server's environment nor an argument may point the SDK elsewhere. The
    project's folders are mcp-bash's too: its tools share code by sourcing
    `"${MCPBASH_PROJECT_ROOT}/lib/helpers.sh"`."""
    tools_dir = env.get("TOOLKILN_TOOLS_DIR")
    env = {key: value for key, value in env.items() if not key.startswith(_RUNTIME_PREFIXES)}
    if tools_dir:
        project_tools = _project_tools_dir(script, Path(tools_dir))
        env.update(MCPBASH_PROJECT_ROOT=str(project_tools.parent), MCPBASH_TOOLS_DIR=str(project_tools))
    env.update(
        MCP_SDK=str(MCP_SDK),
        MCPBASH_MODE="full",
        MCPBASH_JSON_TOOL=_json_tool()[0],
        MCPBASH_JSON_TOOL_BIN=_json_tool()[1],
        MCP_ROOTS_COUNT="0",
    )
    payload = json.dumps(dict(arguments or {}), ensure_ascii=False)
    if len(payload) <= ARGS_ENV_LIMIT:
        env["MCP_TOOL_ARGS_JSON"] = payload
    return env


def _project_tools_dir(script: Path, tools_dir: Path) -> Path:
    """The `tools/` folder of the mcp-bash project the script belongs to: the nearest
    folder named `tools` from the script up to the tools folder (toolkiln's tools folder
    may be the project's `tools/`, or hold the project), else the tools folder itself."""
    tools_dir = tools_dir.resolve()
    folder = script.resolve().parent
    while folder != tools_dir and tools_dir in folder.parents:
        if folder.name == "tools":
            return folder
        folder = folder.parent
    return tools_dir


@cache
def _json_tool() -> tuple[str, str]:
    """gojq or jq, as mcp-bash picks them; ("", "") when neither is installed (the
    runtime then reads JSON with python3)."""
    for name in ("gojq", "jq"):
        if found := shutil.which(name):
            return name, found
    return "", ""


def sidecar_runtime_missing(tool: CompiledTool, stderr: str) -> str | None:
    """Why the script did not reach toolkiln's mcp-bash SDK: bash could not source it."""
    if not _SDK_NOT_FOUND.search(stderr):
        return None
    return (
        f"Tool {tool.name!r} could not source toolkiln's mcp-bash SDK ({MCP_SDK / 'tool-sdk.sh'}): "
        "the file is missing where the script looked (MCP_SDK). Reinstall toolkiln."
    )
