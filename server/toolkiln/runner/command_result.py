"""What a `run_command` call gives back: a headline, the workdir, stdout and stderr in
labelled sections, the same as structured content; and its stderr lines as they come."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkiln.model import CompiledTool
from toolkiln.process import ProcessResult, StderrLineHandler
from toolkiln.runner.limits import limit_hit
from toolkiln.runner.result import ToolResult, signal_name
from toolkiln.runner.stderr import LogLine, ProgressLine, classify_line

if TYPE_CHECKING:
    from toolkiln.runner.observer import CallObserver

# How much of the command a result's first line repeats.
HEADLINE_CHARS = 200


def forward_stderr(name: str, observer: CallObserver) -> StderrLineHandler:
    """PROGRESS and log lines of stderr go to the observer as they come, as a script's do."""

    def on_line(line: str) -> None:
        kind = classify_line(line)
        if isinstance(kind, ProgressLine):
            observer.on_progress(name, kind)
        elif isinstance(kind, LogLine):
            observer.on_log(name, kind)

    return on_line


def command_result(
    tool: CompiledTool, command: str, workdir: str, result: ProcessResult, timeout: float
) -> ToolResult:
    """The result: a headline, the workdir, then stdout and stderr in labelled sections;
    the same as structured content. A command that did not exit with 0 is an error."""
    shown = command if len(command) <= HEADLINE_CHARS else command[:HEADLINE_CHARS] + "..."
    code = result.returncode
    lines: list[str] = []
    if result.timed_out:
        lines.append(f"Command timed out after {timeout:g} s; its processes were stopped: {shown}")
    elif code is not None and code < 0:
        lines.append(f"Command was killed by {signal_name(-code)}: {shown}")
    elif code != 0:
        lines.append(f"Command failed with exit code {code}: {shown}")
    else:
        lines.append(f"Command exited with code 0: {shown}")
    if not result.timed_out and code != 0:
        hit = limit_hit(tool.limits, code, result.stderr_text, tool=tool.name)
        if hit:
            lines.append(hit)
    lines.append(f"workdir: {workdir}")
    stdout, stderr = result.stdout_text, result.stderr_text
    stderr_cut = result.stderr_total > len(result.stderr_tail)
    lines += _section("stdout", stdout)
    if result.stdout_truncated:
        lines.append(
            f"[stdout truncated: showing the first {len(result.stdout)} of {result.stdout_total} bytes]"
        )
    lines += _section("stderr", stderr)
    if stderr_cut:
        lines.append(
            f"[stderr truncated: showing the last {len(result.stderr_tail)} of {result.stderr_total} bytes]"
        )
    truncated = result.stdout_truncated or stderr_cut
    return ToolResult(
        text="\n".join(lines),
        is_error=result.timed_out or code != 0,
        structured={
            "exit_code": code,
            "stdout": stdout,
            "stderr": stderr,
            "timed_out": result.timed_out,
            "truncated": truncated,
        },
        exit_code=code,
        duration_ms=round(result.duration * 1000, 3),
        truncated=truncated,
    )


def _section(label: str, text: str) -> list[str]:
    if not text:
        return [f"--- {label} (empty) ---"]
    return [f"--- {label} ---", text.removesuffix("\n")]
