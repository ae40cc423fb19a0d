"""The dashboard's Latest calls panel: the audit log's last entries, newest first, each
failure's first line shown and the whole of it on demand."""

from __future__ import annotations

import json
from typing import Any

from toolkiln.audit import AuditLog, read_audit_tail

AUDIT_ROWS = 30
ERROR_SHOWN = 160  # characters of an error's first line shown before it is opened


def audit_values(audit: AuditLog | None) -> dict[str, Any]:
    """What `_audit.html` shows (blocking: run it in a worker thread)."""
    entries = read_audit_tail(audit.path, AUDIT_ROWS) if audit is not None else []
    for entry in entries:
        arguments = entry.get("arguments")
        entry["arguments_text"] = json.dumps(arguments, ensure_ascii=False)[:200] if arguments else ""
        error = entry.get("error")
        if isinstance(error, str):  # its first line, and the whole of it on demand
            first, _, rest = error.strip().partition("\n")
            long = len(first) > ERROR_SHOWN
            entry["error_first"] = first[:ERROR_SHOWN] + ("…" if long else "")
            entry["error_rest"] = bool(rest) or long
    return {"audit": list(reversed(entries)), "audit_path": str(audit.path) if audit else None}
