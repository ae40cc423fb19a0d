"""What a Python-module tool's call became, as a `ToolResult`.

A returned value in the envelope of seeds/004 maps to MCP: `status: success` gives
`data` as the structured result (and as text), `status: error` a tool error with
`error`; `metadata` (with `duration_sec` filled in when the tool left it out) goes to
the result's `_meta`. A dict with a `content` array is a rich result
(runner/content.py). Any other value is the result as it is; a `run(**)` function's
(llm-functions) is its printed output and its returned value. An exception is a tool
error with its type, message and the line of the tool's own file it came through;
its traceback goes to the server's log only (at info: `serve` shows it, `call` with -v).
"""

from __future__ import annotations

import json
from typing import Any

from toolkiln.model import CompiledTool
from toolkiln.runner.content import rich_result
from toolkiln.runner.limits import limit_hit
from toolkiln.runner.named_files import FileFence
from toolkiln.runner.python_pool import WorkerAnswer
from toolkiln.runner.result import ToolResult, exit_meaning, signal_name

_STATUSES = ("success", "error")


async def result_from_answer(
    tool: CompiledTool, answer: WorkerAnswer, timeout: float, stderr: list[str], files: FileFence
) -> ToolResult:
    name = tool.name
    duration_ms = round(answer.duration * 1000, 3)
    if answer.outcome == "returned" and tool.python_entry == "run(**)":
        return _function_result(answer.value, answer.printed, duration_ms)
    if answer.outcome == "returned":
        rich = await rich_result(answer.value, name, files, duration_ms=duration_ms)
        return rich or _result_from_value(answer.value, answer.duration, duration_ms)
    if answer.outcome == "timed_out":
        headline = f"Tool {name!r} timed out after {timeout:g} s; its worker process was stopped."
    elif answer.outcome == "exited":
        if answer.exit_code == 0:
            return ToolResult(text="", is_error=False, exit_code=0, duration_ms=duration_ms)
        headline = f"Tool {name!r} called sys.exit({answer.exit_code}) ({exit_meaning(answer.exit_code)})."
    elif answer.outcome == "raised":
        hit = (
            limit_hit(tool.limits, 1, "MemoryError", tool=name)
            if answer.error_type == "MemoryError"
            else None
        )
        raised = f"{answer.error_type}: {answer.message}".rstrip(": ")
        if answer.where:
            raised += f" ({answer.where})"
        doing = "could not import its module" if answer.during_import else "raised"
        headline = hit or f"Tool {name!r} {doing}: {raised}"
    else:
        headline = limit_hit(tool.limits, answer.exit_code, answer.stderr_tail, tool=name) or (
            f"Tool {name!r} crashed: its worker process {_how_it_ended(answer)}; the next call starts afresh."
        )
    text = "\n".join([headline, *(["stderr:", *stderr] if stderr else [])])
    return ToolResult(text=text, is_error=True, exit_code=answer.exit_code, duration_ms=duration_ms)


def _result_from_value(value: Any, duration: float, duration_ms: float) -> ToolResult:
    if not (isinstance(value, dict) and value.get("status") in _STATUSES):
        structured = value if isinstance(value, dict) else None
        return ToolResult(
            text=_as_text(value), is_error=False, structured=structured, duration_ms=duration_ms
        )
    metadata = value.get("metadata")
    meta = {"duration_sec": round(duration, 6), **(metadata if isinstance(metadata, dict) else {})}
    data = value.get("data")
    if value["status"] == "error":
        text = str(value.get("error") or "the tool reported an error")
        if data is not None:
            text += "\n" + _as_text(data)
        return ToolResult(text=text, is_error=True, duration_ms=duration_ms, meta=meta)
    structured = data if isinstance(data, dict) else {"result": data}
    return ToolResult(
        text=_as_text(data), is_error=False, structured=structured, duration_ms=duration_ms, meta=meta
    )


def _function_result(value: Any, printed: str, duration_ms: float) -> ToolResult:
    """llm-functions' `run(**)`: what it printed, then what it returned (a string as it
    is, None as nothing, anything else as JSON); a returned dict is also the structured
    result. No seeds/004 envelope: such a function's dict is its data."""
    text = printed + _as_text(value)
    structured = value if isinstance(value, dict) and not printed else None
    return ToolResult(
        text=text.removesuffix("\n"), is_error=False, structured=structured, duration_ms=duration_ms
    )


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value, ensure_ascii=False, indent=2)


def _how_it_ended(answer: WorkerAnswer) -> str:
    if answer.message:
        return answer.message
    code = answer.exit_code
    if code is not None and code < 0:
        return f"was killed by {signal_name(-code)}"
    return f"exited with code {code}" if code is not None else "closed its output"
