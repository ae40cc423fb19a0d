"""Telling that a tool failed because it hit one of its limits, and saying which.

The rlimits themselves are set by `process/`; a process that hits one only fails
(killed by a signal, or an allocation, open or fork that the OS refused), so the
limit is recognised here from how it ended and from the tail of its stderr. A limit
that is not set is never named, so a tool without limits keeps its plain failure.
"""

from __future__ import annotations

import signal

from toolkiln.model.limits import Limits

# How much of the end of stderr is searched for a refusal's message.
STDERR_TAIL_CHARS = 4000
# A process killed by signal N shows as -N to its parent, and as 128 + N to a shell's parent
# when it was the shell's last command.
_SHELL_SIGNAL_BASE = 128
_CPU_SIGNALS = (signal.SIGXCPU, signal.SIGKILL)
_CPU_MESSAGES = ("cpu time limit exceeded",)
_MEMORY_MESSAGES = ("memoryerror", "cannot allocate memory", "std::bad_alloc", "out of memory")
_FILES_MESSAGES = ("too many open files",)
_PROCESSES_MESSAGES = ("resource temporarily unavailable", "fork: retry", "can't start new thread")


def limit_hit(limits: Limits, returncode: int | None, stderr_text: str, *, tool: str) -> str | None:
    """The sentence naming the limit that tool `tool` hit, or None if none of its limits explains the failure.

    `limits` are the tool's compiled limits (`CompiledTool.limits`); `returncode` is
    how its process ended (negative: killed by that signal), or None when there is no
    exit status (a long-lived worker that reported the failure); 0 is never a hit.
    `stderr_text` is what the process (or worker) wrote to stderr, or its tail.

    CPU: killed by SIGXCPU, or by SIGKILL (the hard limit) when `cpu_seconds` is set.
    Memory, open files, processes: the message of the refusal at the end of stderr
    (MemoryError, "Cannot allocate memory", std::bad_alloc, "out of memory"; "Too many
    open files"; "Resource temporarily unavailable", "fork: retry") when that limit
    is set.
    """
    if returncode == 0:
        return None
    tail = stderr_text[-STDERR_TAIL_CHARS:].lower()
    if limits.cpu_seconds is not None and (
        _killed_by(returncode, _CPU_SIGNALS) or _mentions(tail, _CPU_MESSAGES)
    ):
        return _sentence(tool, "CPU", "cpu_seconds", limits.cpu_seconds)
    if limits.memory_mb is not None and _mentions(tail, _MEMORY_MESSAGES):
        return _sentence(tool, "memory", "memory_mb", limits.memory_mb)
    if limits.open_files is not None and _mentions(tail, _FILES_MESSAGES):
        return _sentence(tool, "open files", "open_files", limits.open_files)
    if limits.processes is not None and _mentions(tail, _PROCESSES_MESSAGES):
        return _sentence(tool, "processes", "processes", limits.processes)
    return None


def output_limit(limits: Limits, default: int) -> int:
    """The bytes of stdout kept: the tool's `max_output_bytes` when set, else the server's."""
    return limits.max_output_bytes if limits.max_output_bytes is not None else default


def output_limit_hit(limits: Limits, kept: int, total: int, *, tool: str) -> str | None:
    """The sentence naming `max_output_bytes` when the tool's own limit cut its output.

    A cut by the server's default (`--max-output`) is no error: the result only says
    where the output was cut. A limit that the tool's config (or `config/server.json`)
    sets is a promise about the tool, and breaking it is a tool error.
    """
    if limits.max_output_bytes is None or total <= kept:
        return None
    return (
        _sentence(tool, "output", "max_output_bytes", limits.max_output_bytes)
        + f" It printed {total} bytes; the first {kept} follow."
    )


def _killed_by(returncode: int | None, signals: tuple[signal.Signals, ...]) -> bool:
    if returncode is None:
        return False
    return any(returncode in (-signum, _SHELL_SIGNAL_BASE + signum) for signum in signals)


def _mentions(text: str, messages: tuple[str, ...]) -> bool:
    return any(message in text for message in messages)


def _sentence(tool: str, what: str, key: str, value: int) -> str:
    return (
        f"Tool {tool!r} hit its {what} limit ({key}: {value}); "
        f"raise limits.{key} in its config if it needs more."
    )
