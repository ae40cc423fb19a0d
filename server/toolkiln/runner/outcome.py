"""A finished script's process as a call's result: its output, or the failure it
was (a timeout, an exit code, a signal, a limit hit), with the stderr that explains it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from toolkiln.model import CompiledTool
from toolkiln.process import ProcessResult
from toolkiln.runner.content import json_object, rich_result
from toolkiln.runner.limits import limit_hit, output_limit_hit
from toolkiln.runner.named_files import FileFence
from toolkiln.runner.result import ToolResult, exit_meaning, signal_name
from toolkiln.runner.runtime_answer import runtime_missing

GONE = "The script is gone: run `toolkiln discover` and `toolkiln build`."


async def result_from_process(
    tool: CompiledTool,
    result: ProcessResult,
    timeout: float,
    stderr: list[str],
    files: FileFence,
    script: Path | None = None,
) -> ToolResult:
    """The call's result; a failure says which of the tool's limits it hit, if one did.

    Output cut by the server's default cap is a note; cut by the tool's own
    `max_output_bytes` (its config or `config/server.json`), it is a tool error.
    """
    text = result.stdout_text.removesuffix("\n")
    output_hit = output_limit_hit(tool.limits, len(result.stdout), result.stdout_total, tool=tool.name)
    if result.stdout_truncated and output_hit is None:
        text += f"\n[output truncated: showing the first {len(result.stdout)} of {result.stdout_total} bytes]"
    common: dict[str, Any] = {
        "exit_code": result.returncode,
        "duration_ms": round(result.duration * 1000, 3),
        "truncated": result.stdout_truncated,
    }
    headlines: list[str | None] = []
    if result.timed_out:
        headlines.append(f"Tool {tool.name!r} timed out after {timeout:g} s; its processes were stopped.")
    elif result.returncode != 0:
        headlines.append(limit_hit(tool.limits, result.returncode, result.stderr_text, tool=tool.name))
        headlines.append(_failure(tool.name, result.returncode))
        if script is not None and not script.exists():  # run by an interpreter that said so in its words
            headlines.append(GONE)
    headlines.append(output_hit)
    if not result.timed_out:
        headlines.append(runtime_missing(tool, result.stderr_text))
    if any(headlines):
        headline = "\n".join(line for line in headlines if line)
        return ToolResult(text=_join(headline, text, stderr), is_error=True, **common)
    value = None if result.stdout_truncated else json_object(text)
    rich = await rich_result(value, tool.name, files, **common)
    return rich or ToolResult(text=text, is_error=False, structured=value, **common)


def _failure(name: str, code: int | None) -> str:
    if code is not None and code < 0:
        return f"Tool {name!r} was killed by {signal_name(-code)}."
    return f"Tool {name!r} failed with exit code {code} ({exit_meaning(code)})."


def _join(headline: str, stdout: str, stderr: list[str]) -> str:
    parts = [headline]
    if stdout:
        parts.append(stdout)
    if stderr:
        parts.append("stderr:\n" + "\n".join(stderr))
    return "\n".join(parts)


def start_hint(script: os.PathLike[str], program: str) -> str:
    path = os.fspath(script)
    if not os.path.exists(path):
        return GONE
    if program != path:  # run by an interpreter (a kit script without a shebang line)
        return (
            f"Install {program} (it must be on the PATH), or give the script a shebang line "
            f"and make it executable: chmod +x {path}"
        )
    if not os.access(path, os.X_OK):
        return f"Make it executable: chmod +x {path}"
    return "Check its shebang line."
