"""Whether the server that wrote a discovery file (`server.json`) still runs.

A pid alone says little: a SIGKILLed server leaves its file behind, and its pid may be
a zombie not yet reaped, or, after a while or a reboot, another process's. So the
server records its pid with the time that process started (`/proc/<pid>/stat`, in
clock ticks since boot) and the boot's id; a reader believes the file only when a
process with that pid, started at that time in this boot, is running now. Where /proc
is missing (macOS), the pid is all there is.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


def process_identity(pid: int) -> dict[str, object]:
    """What identifies process `pid` in this boot: its pid, start time and the boot's id."""
    identity: dict[str, object] = {"pid": pid}
    started, boot = _start_ticks(pid), _boot_id()
    if started is not None:
        identity["process_start"] = started
    if boot is not None:
        identity["boot_id"] = boot
    return identity


def still_running(entry: Mapping[str, object]) -> bool:
    """Whether the process that `entry` (a `process_identity`) names runs now."""
    try:
        pid = int(str(entry["pid"]))
    except (KeyError, ValueError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # running, as another user
    if "boot_id" in entry and _boot_id() not in (None, entry["boot_id"]):
        return False  # written before a reboot: the pid is someone else's now
    if not Path("/proc/self/stat").exists():
        return True
    if _is_zombie(pid):
        return False  # killed, not yet reaped by its parent
    return "process_start" not in entry or _start_ticks(pid) == entry["process_start"]


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (field 3 onward)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _start_ticks(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return int(fields[19]) if fields and len(fields) > 19 and fields[19].isdigit() else None  # field 22


def _is_zombie(pid: int) -> bool:
    fields = _stat_fields(pid)
    return fields is not None and fields[:1] in (["Z"], ["X"])


def _boot_id() -> str | None:
    try:
        return BOOT_ID.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None
