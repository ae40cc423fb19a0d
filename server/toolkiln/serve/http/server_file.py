"""The discovery file (`server.json`) that replicas sharing a token folder take turns
writing: each start writes its own entry; a server that stops leaves the file to the
server it replaced when that one still runs, and removes it only when none does.

Replicas started one after another each remember the entry they replaced: stopping
the last started puts back the one before (if it runs), and stopping any other leaves
the file alone (it is not theirs). `toolkiln` clients read the file to find a running
server (liveness.py tells a stale entry).
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from toolkiln import __version__
from toolkiln.files import write_json_atomic
from toolkiln.liveness import process_identity, still_running


def read_server_file(path: Path) -> dict[str, Any] | None:
    """The entry in `path`, when it names a server that runs now; else None."""
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return (
        entry
        if isinstance(entry, dict) and entry.get("pid") != os.getpid() and still_running(entry)
        else None
    )


def write_server_file(path: Path, base_url: str, **facts: Any) -> dict[str, Any] | None:
    """Write this server's entry (its URLs, who it is, `facts`: the token file, the tool
    count, ...) into `path`, mode 0600; returns the entry it replaced, when that server
    still runs (`release_server_file` puts it back)."""
    previous = read_server_file(path)
    entry = {
        "url": f"{base_url}/mcp",
        "rpc_url": f"{base_url}/rpc",
        "health_url": f"{base_url}/health",
        **process_identity(os.getpid()),  # pid, start time, boot: clients can tell a stale file
        "version": __version__,
        **facts,
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    write_json_atomic(path, entry, mode=0o600)
    return previous


def release_server_file(path: Path, previous: dict[str, Any] | None) -> None:
    """At this server's stop: put back `previous` (the entry it replaced) if that server
    still runs, else remove the file; unless another server has written its own since."""
    try:
        if json.loads(path.read_text(encoding="utf-8")).get("pid") != os.getpid():
            return
    except (FileNotFoundError, ValueError):
        return
    if previous is not None and still_running(previous):
        write_json_atomic(path, previous, mode=0o600)
    else:
        path.unlink(missing_ok=True)
