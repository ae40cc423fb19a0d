#!/usr/bin/env python3
"""utils/system-info -> tool `utils__system-info`: a nested tool (folders joined
with `__`) that writes structured log lines on stderr (TRACE, DEBUG, INFO,
WARNING), PROGRESS lines, and prints one JSON object (structured content).
It also reports the server variables every script gets."""

from __future__ import annotations

import json
import os
import platform
import socket
import sys
import time

METADATA = {
    "title": "System information",
    "description": "Report the host name, kernel, uptime and the toolkiln server variables",
    "version": "1.0.0",
    "state": False,
}
OPTIONS = {
    "details": {
        "description": "Also report CPU count, load average, memory and Python version",
        "required": False,
        "value_type": "boolean",
        "default_value": False,
    }
}


def log(level: str, message: str) -> None:
    print(f"{level} {message}", file=sys.stderr, flush=True)


def uptime_seconds() -> float | None:
    try:
        with open("/proc/uptime") as handle:
            return float(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def memory_kib() -> dict[str, int]:
    wanted = {"MemTotal": "total_kib", "MemAvailable": "available_kib"}
    found: dict[str, int] = {}
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                key, _, rest = line.partition(":")
                if key in wanted:
                    found[wanted[key]] = int(rest.split()[0])
    except (OSError, ValueError):
        pass
    return found


def main() -> int:
    if sys.argv[1:] == ["--help"]:
        print(json.dumps(METADATA))
        print(json.dumps(OPTIONS), file=sys.stderr)
        return 0
    text = "" if sys.stdin.isatty() else sys.stdin.read()
    details = bool(json.loads(text).get("details")) if text.strip() else False
    steps = 3 if details else 2
    log("INFO", "collecting system information")
    print(f"PROGRESS 1/{steps} host", file=sys.stderr, flush=True)
    uname = platform.uname()
    log("TRACE", f"uname: {tuple(uname)}")
    info: dict[str, object] = {
        "hostname": socket.gethostname(),
        "os": uname.system,
        "kernel": uname.release,
        "machine": uname.machine,
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    print(f"PROGRESS 2/{steps} uptime", file=sys.stderr, flush=True)
    uptime = uptime_seconds()
    if uptime is None:
        log("WARNING", "/proc/uptime is not readable; uptime is unknown")
    else:
        log("DEBUG", f"read /proc/uptime: {uptime:.0f} s")
    info["uptime_seconds"] = None if uptime is None else round(uptime)
    if details:
        print(f"PROGRESS 3/{steps} details", file=sys.stderr, flush=True)
        info["cpu_count"] = os.cpu_count()
        info["load_average"] = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
        info["memory"] = memory_kib() or None
        info["python"] = platform.python_version()
    # The variables the server sets for every script (docs/dialects.md).
    server = {
        "tool_name": os.environ.get("TOOLKILN_TOOL_NAME"),
        "tool_dir": os.environ.get("TOOLKILN_TOOL_DIR"),
        "transport": os.environ.get("TOOLKILN_TRANSPORT"),
        "tools_dir": os.environ.get("MCPD_CONFIG_COMMANDS_ROOT_DIRECTORY"),
        "log_level": os.environ.get("MCPD_CONFIG_LOGGING_LEVEL_NAME"),
    }
    if server["transport"] is None:
        log("WARNING", "not started by a toolkiln server or `toolkiln call`: the server variables are unset")
    info["server"] = server
    log("INFO", f"done: {len(info)} fields")
    print(json.dumps(info, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
