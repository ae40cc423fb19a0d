"""The words of toolkiln's file formats that need no models: parameter types, the
names a tool and a parameter may have, and (from env_names.py) the environment names
no argument may replace. Here, not in `model/`, because importing `model` imports
pydantic (~0.1 s), and an unchanged `discover` or a client's config needs none of it."""

from __future__ import annotations

import re
from typing import Any, Literal

from toolkiln.env_names import SENSITIVE_ENV_NAMES as SENSITIVE_ENV_NAMES
from toolkiln.env_names import SENSITIVE_ENV_PREFIXES as SENSITIVE_ENV_PREFIXES
from toolkiln.env_names import is_sensitive_env_name as is_sensitive_env_name
from toolkiln.env_names import sensitive_env_reason as sensitive_env_reason

ParamType = Literal["string", "integer", "number", "boolean", "array", "object", "any"]
PARAM_TYPES: tuple[ParamType, ...] = ("string", "integer", "number", "boolean", "array", "object", "any")
PARAM_NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")


def value_matches_type(value: Any, param_type: ParamType) -> bool:
    """Whether a JSON value is of a parameter type (bool is not a number in JSON)."""
    if param_type == "any":
        return True
    if isinstance(value, bool):
        return param_type == "boolean"
    expected: dict[str, type | tuple[type, ...]] = {
        "string": str,
        "integer": int,
        "number": (int, float),
        "boolean": bool,
        "array": list,
        "object": dict,
    }
    return isinstance(value, expected[param_type])


# argc: `# @option` comment tags (sigoden/argc); sidecar: a JSON declaration beside any
# executable (mcp-bash's `tool.meta.json` too); function: JavaScript `exports.run`;
# shell: a shell script written for no framework, read from its getopts/`case "$1"` loop,
# `$1` reads and usage text (conventions/shell/read.py, conventions/shell/argv.py);
# fallback: an opted-in executable served as one `args` array; raycast: Raycast script
# commands (`# @raycast.title`, `# @raycast.argument1 {...}`); scriptkit: a Script Kit
# script run under toolkiln's runtime of `@johnlindquist/kit` (its `// mcp:` scripts too).
DialectName = Literal[
    "annotations",
    "help-json",
    "python",
    "kit",
    "scriptkit",
    "command",
    "argc",
    "sidecar",
    "function",
    "fallback",
    "raycast",
    "node-cli",
    "shell",
    "entry-point",
]
# How a Python-module tool is called: `execute(params)` or `main(params)` with the
# arguments as one dict, `execute(**params)` with each as a keyword, or `script` (a
# command-line script: argparse, click or typer, run with its arguments on argv).
# `run(**)` is llm-functions' `def run(...)`, each argument a keyword, its return value the result.
# `docopt` and `fire` are command-line scripts too, whose argv follows docopt's usage
# patterns or Python Fire's flags (conventions/python_cli/docopt_argv.py, conventions/python/fire_argv.py).
# `argv` is a script that reads `sys.argv` by hand: each argument one word, in order, and
# its `stdin` parameter on stdin (conventions/by_hand/python_argv_argv.py).
PythonEntry = Literal["execute", "main", "execute(**)", "run(**)", "script", "docopt", "fire", "argv"]
# The entries run as a process with their arguments on argv (the others in a worker).
SCRIPT_ENTRIES: tuple[PythonEntry, ...] = ("script", "docopt", "fire", "argv")
# How a command-line script's option takes its value (None: `--name=value`, or a bare
# word for a positional): `flag` given (or its `--no-` form) when the value differs from
# the default; `count` given N times (`-vvv`); `repeat` given once per item (`--tag=a
# --tag=b`: argparse's append/extend, click's multiple); `list` given once, followed by
# its items (argparse's `nargs="+"`).
OptionForm = Literal["flag", "count", "repeat", "list"]
TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def check_tool_name(name: str) -> str:
    if not TOOL_NAME_PATTERN.match(name):
        raise ValueError(
            f"tool name {name!r} must be 1 to 64 characters of letters, digits, _ and - "
            "(what MCP clients accept)"
        )
    return name


# The keys of a prompt's and a resource's settings that the user owns (discovery keeps them).
USER_PROMPT_KEYS = ("name", "title")
USER_RESOURCE_KEYS = ("name", "title", "description", "uri", "mime_type", "completions")
