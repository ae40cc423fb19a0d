"""The audit trail: one JSON line per tool call and per denied request (denials in a file
of their own, bounded and summarised, so they never push calls out: denials.py).

The file is cut at a size and a few old files are kept, as the standard library's
`RotatingFileHandler` does, so it can never fill the disk; several processes may write
one log (log.py). Every value is cleaned before it is written: the server's own token,
arguments marked `secret` or named like a secret, and anything that looks like a
credential are redacted, and long values are cut with a marker (redaction.py).
"""

from __future__ import annotations

from toolkiln.audit.log import DEFAULT_BACKUPS, DEFAULT_MAX_BYTES, MAX_RECORD_BYTES, AuditLog
from toolkiln.audit.reading import audit_files, read_audit, read_audit_tail
from toolkiln.audit.redaction import MAX_FIELD, MAX_STRING, REDACTED, Redactor, redact

__all__ = [
    "DEFAULT_BACKUPS",
    "DEFAULT_MAX_BYTES",
    "MAX_FIELD",
    "MAX_RECORD_BYTES",
    "MAX_STRING",
    "REDACTED",
    "AuditLog",
    "Redactor",
    "audit_files",
    "read_audit",
    "read_audit_tail",
    "redact",
]
