"""How arguments reach a script, per dialect.

Every dialect gets the arguments as one JSON object on stdin and as environment
variables named exactly after the parameters (seeds/000); annotated scripts also
get them on the command line, `run.sh [<function>] --name=value ...` (seeds/003);
a JavaScript function tool gets them as the argument of its `run` (runtimes/run_function.cjs).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from toolkiln.errors import ProcessStartError
from toolkiln.interpreters import (
    TYPESCRIPT_SUFFIXES,
    node_command,
    script_command,
)
from toolkiln.model import CompiledTool, DialectName
from toolkiln.runner.words import plain_values, text_form

# An annotated script's `function` parameter is its first positional argument.
FUNCTION_PARAMETER = "function"

ArgvBuilder = Callable[[Path, CompiledTool, Mapping[str, Any]], list[str]]


def stdin_json(arguments: Mapping[str, Any]) -> bytes:
    return json.dumps(dict(arguments), ensure_ascii=False).encode()


def argument_env(tool: CompiledTool, arguments: Mapping[str, Any]) -> dict[str, str | None]:
    """Each parameter as an env var; None unsets one the client left out, so a value
    inherited from the server's own environment never poses as an argument."""
    return {
        p.name: text_form(arguments[p.name])
        if p.name in arguments and not _stdin_only(tool, p.option)
        else None
        for p in tool.parameters
    }


def _stdin_only(tool: CompiledTool, option: str | None) -> bool:
    """A by-hand Python script's `stdin` parameter: on its stdin only, whatever its size
    (an environment variable holds at most 128 KiB)."""
    return tool.python_entry == "argv" and option is None


def _annotations_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    argv = script_command(script)
    if FUNCTION_PARAMETER in arguments:  # a bare word: it must not pose as an option
        argv += plain_values(FUNCTION_PARAMETER, [text_form(arguments[FUNCTION_PARAMETER])])
    argv += [
        f"--{name}={text_form(value)}" for name, value in arguments.items() if name != FUNCTION_PARAMETER
    ]
    return argv


def _help_json_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    return script_command(script)


def _kit_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    return script_command(script)


def _fallback_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    """The opted-in program and the client's `args`, each item one word, exactly as given:
    the user who opted it in gave the client its whole command line (docs/security.md)."""
    return [*script_command(script), *(text_form(item) for item in arguments.get("args", []))]


def _raycast_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    """As Raycast runs a script command: each argument positional (`$1 $2 $3`) in order,
    "" for an optional one left out, percent-encoded when it says `percentEncoded`."""
    values = []
    for param in tool.parameters:
        value = text_form(arguments.get(param.name, ""))
        if param.enum is None:  # a free value: a script handing `$1` on must not get an option
            plain_values(param.name, [value])
        values.append(quote(value, safe="") if param.encoding == "percent" else value)
    return [*script_command(script), *values]


def stdin_for(tool: CompiledTool, arguments: Mapping[str, Any]) -> bytes | None:
    """What the script reads on stdin: the arguments as JSON, but for conventions whose
    programs get their arguments on the command line and nothing on stdin (None: closed),
    and the plain shell and `sys.argv` scripts, which get their `stdin` parameter's text."""
    if tool.dialect == "shell":
        from toolkiln.runner.shell_argv import shell_stdin

        return shell_stdin(tool, arguments)
    if tool.python_entry == "argv":  # a script reading sys.argv by hand: its `stdin` parameter, or nothing
        from toolkiln.runner.python_argv_argv import argv_stdin

        return argv_stdin(tool, arguments)
    return None if tool.dialect in _NO_STDIN else stdin_json(arguments)


_NO_STDIN = ("fallback", "raycast")


def _sidecar_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    from toolkiln.runner.sidecar_run import sidecar_argv

    return sidecar_argv(script, tool, arguments)


def _argc_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    from toolkiln.runner.argc_argv import argc_argv  # its own module: argc's argv has rules of its own

    return argc_argv(script, tool, arguments)


FUNCTION_RUNNER = Path(__file__).parent.parent / "runtimes" / "run_function.cjs"


def _function_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    """A JavaScript function tool: toolkiln's Node runner imports it and calls its
    `run(arguments)` (or the function its `command` names: an agent's `tools.js`) with
    the stdin JSON."""
    node = shutil.which("node")
    if node is None:
        raise ProcessStartError(
            "it is a JavaScript function tool and needs node (Node.js), which is not installed "
            "on the PATH; install Node.js 18 or later"
        )
    return [node, str(FUNCTION_RUNNER), str(script), *([tool.command] if tool.command else [])]


def _python_script_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    if tool.python_entry == "docopt":
        from toolkiln.runner.python_docopt_argv import docopt_argv

        return docopt_argv(script, tool, arguments)
    if tool.python_entry == "fire":
        from toolkiln.runner.python_fire_argv import fire_argv

        return fire_argv(script, tool, arguments)
    if tool.python_entry == "argv":
        from toolkiln.runner.python_argv_argv import argv_words

        return argv_words(script, tool, arguments)
    from toolkiln.runner.python_cli_argv import python_script_argv

    return python_script_argv(script, tool, arguments)


def _node_cli_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    from toolkiln.runner.node_cli_argv import node_cli_argv

    return node_cli_argv(script, tool, arguments)


SCRIPTKIT_RUNNER = Path(__file__).parent.parent / "runtimes" / "scriptkit" / "run.mjs"


def _scriptkit_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    """A Script Kit script: toolkiln's runtime of `@johnlindquist/kit` imports it with the
    stdin JSON as its input; the names of the parameters its `arg()` calls take, in order,
    follow the script (their values stay on stdin)."""
    typescript = script.suffix.lower() in TYPESCRIPT_SUFFIXES
    node = node_command(typescript=typescript)
    if node is None:
        wanted = "22.6 or later (TypeScript)" if typescript else "20.6 or later"
        raise ProcessStartError(
            f"it is a Script Kit script and needs node (Node.js) {wanted}, which is not "
            "installed on the PATH; install it"
        )
    positional = [param.name for param in tool.parameters if param.option == ""]
    return [*node, str(SCRIPTKIT_RUNNER), str(script), *positional]


def _shell_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    from toolkiln.runner.shell_argv import shell_argv  # its own module, as argc's

    return shell_argv(script, tool, arguments)


def _entry_point_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    from toolkiln.conventions.entry_points.argv import entry_point_argv  # the convention's own

    return entry_point_argv(script, tool, arguments)


ARGV_BUILDERS: dict[DialectName, ArgvBuilder] = {
    "scriptkit": _scriptkit_argv,
    "argc": _argc_argv,
    "annotations": _annotations_argv,
    "sidecar": _sidecar_argv,
    "help-json": _help_json_argv,
    "function": _function_argv,
    "kit": _kit_argv,
    "python": _python_script_argv,
    "fallback": _fallback_argv,
    "raycast": _raycast_argv,
    "node-cli": _node_cli_argv,
    "shell": _shell_argv,
    "entry-point": _entry_point_argv,
}
