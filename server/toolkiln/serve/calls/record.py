"""The audit record of one `tools/call`, made while the tool runs and written as it ends."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from mcp.server.context import ServerRequestContext

from toolkiln.audit import AuditLog
from toolkiln.model import CompiledTool


class CallRecord:
    """The audit record of one `tools/call`. `prepare` makes its first fields (the
    redaction and the JSON are the costly part of a record) while
    the tool runs, so that the answer waits only for the outcome to be appended."""

    def __init__(
        self,
        audit: AuditLog | None,
        tool: CompiledTool | None,
        name: str,
        arguments: Mapping[str, Any] | None,
        transport: str,
        client: str | None,
    ) -> None:
        self.audit = audit
        self.tool = tool
        self.fields = {"event": "tools/call", "transport": transport, "client": client, "tool": name}
        self.arguments = arguments or {}
        self.arrived = time.time()  # the record's timestamp: when the call came in
        self.started = time.perf_counter()
        self.prepared: str | None = None

    def prepare(self) -> None:
        if self.audit is None or self.prepared is not None:
            return
        secrets = [p.name for p in self.tool.parameters if p.secret] if self.tool else []
        self.prepared = self.audit.prepare(
            self.arrived, secret_names=secrets, **self.fields, arguments=self.arguments
        )

    def __call__(self, **outcome: Any) -> None:
        if self.audit is None:
            return
        self.prepare()
        duration_ms = round((time.perf_counter() - self.started) * 1000, 3)
        self.audit.record(self.prepared, duration_ms=duration_ms, **outcome)


def client_name(ctx: ServerRequestContext[Any] | None) -> str | None:
    params = ctx.session.client_params if ctx is not None else None
    return params.client_info.name if params is not None else None
