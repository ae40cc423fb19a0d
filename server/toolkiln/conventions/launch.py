"""What the runner needs from a convention to start one of its tools: the command line
(`argv`), what the program reads on stdin, the environment it adds, and whether it runs in
toolkiln's Python workers instead of as a process. Each convention's `argv.py` provides the
pieces; `launchers.py` lists them by convention. A leaf: it imports no convention.

Every convention gets the arguments as environment variables named after the parameters
(seeds/000); most also get them as one JSON object on stdin.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkiln.interpreters import script_command
from toolkiln.model import CompiledTool

ArgvBuilder = Callable[[Path, CompiledTool, Mapping[str, Any]], list[str]]
StdinPolicy = Callable[[CompiledTool, Mapping[str, Any]], "bytes | None"]
EnvBuilder = Callable[[dict[str, str], "Mapping[str, Any] | None", Path], dict[str, str]]
# Why a finished run did not reach the runtime toolkiln ships (from its stderr), or None.
RuntimeCheck = Callable[[CompiledTool, str], "str | None"]


# One encoder for every call (`json.dumps` with an option builds one each time).
_ENCODER = json.JSONEncoder(ensure_ascii=False)


def stdin_json(arguments: Mapping[str, Any]) -> bytes:
    """The arguments as one JSON object, as a program reads them on stdin."""
    return _ENCODER.encode(dict(arguments)).encode()


def json_on_stdin(tool: CompiledTool, arguments: Mapping[str, Any]) -> bytes:
    """The usual stdin: the arguments as JSON."""
    return stdin_json(arguments)


def closed_stdin(tool: CompiledTool, arguments: Mapping[str, Any]) -> None:
    """Nothing on stdin (closed): for programs that get everything on their command line."""
    return None


def script_alone(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    """The script with no words after it: its arguments reach it on stdin and in env."""
    return script_command(script)


@dataclass(frozen=True)
class Launch:
    """How the runner starts a tool of one convention."""

    argv: ArgvBuilder
    stdin: StdinPolicy = json_on_stdin
    # Set last on the environment: what a shipped runtime reads, which no argument may set.
    env: EnvBuilder | None = None
    # Run in toolkiln's warm Python workers (`runner/python_pool.py`), not as a process.
    in_worker: bool = False
    # Whether a tool's parameter with no `option` reaches it on its stdin only, never in its
    # environment (a by-hand Python script's `stdin`: a variable holds at most 128 KiB).
    stdin_only: Callable[[CompiledTool], bool] | None = None
    # For a convention whose scripts reach a runtime toolkiln ships (argc's shim, the
    # mcp-bash SDK): a run that did not reach it is an error that names what is missing.
    runtime_missing: RuntimeCheck | None = None
