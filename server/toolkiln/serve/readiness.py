"""Whether this server should be sent new work now: `GET /ready`, beside the liveness
probe `GET /health`.

`/health` says the process answers (a load balancer or a supervisor restarts one that
does not); `/ready` says whether it should get new work: 200 when nothing holds it
back, else 503 with the reasons. A reason is held under a name by the part of the
server that knows it and released when it no longer applies: `task-store` while the
shared store (Redis, `state.url`) cannot be reached (tasks/owners.py's heartbeat),
`draining` while the server stops. A load balancer that probes `/ready` sends new work
to the other replicas meanwhile; calls that need no shared state still work here.

The answer names reasons in fixed words, never the store's address or an error's text
(those go to the log): the probe needs no token, so anyone who reaches the port reads it.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse

READY_PATH = "/ready"
STORE_UNREACHABLE = "the shared task store (state.url) cannot be reached"


class Readiness:
    """The reasons this server is not ready, by name; safe to use from any thread."""

    def __init__(self) -> None:
        self._reasons: dict[str, str] = {}
        self._lock = threading.Lock()

    def hold(self, name: str, reason: str) -> None:
        """Not ready because of `reason` until `release(name)`."""
        with self._lock:
            self._reasons[name] = reason

    def release(self, name: str) -> None:
        with self._lock:
            self._reasons.pop(name, None)

    def reasons(self) -> dict[str, str]:
        with self._lock:
            return dict(sorted(self._reasons.items()))

    @property
    def ready(self) -> bool:
        return not self.reasons()


def ready_endpoint(readiness: Readiness) -> Callable[[Request], Awaitable[JSONResponse]]:
    """`GET /ready`: 200 `{"status": "ready"}`, or 503 with why not."""

    async def ready(request: Request) -> JSONResponse:
        reasons = readiness.reasons()
        if not reasons:
            return JSONResponse({"status": "ready"})
        return JSONResponse({"status": "not ready", "reasons": reasons}, status_code=503)

    return ready
