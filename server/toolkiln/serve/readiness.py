"""Whether this server is ready for new work, and if not, why: a registry of reasons
("draining", ...) any part of the server may set and clear, behind `GET /ready`.

`/health` says the process is alive (a liveness probe); `/ready` says whether a load
balancer should send it new work: 200 `{"ready": true}`, or 503 with the reasons
(`{"ready": false, "reasons": ["draining"]}`). Like `/health` it needs no token and
says nothing private.
"""

from __future__ import annotations

import threading

from starlette.requests import Request
from starlette.responses import JSONResponse

_reasons: dict[str, None] = {}  # in the order they were marked
_lock = threading.Lock()


def mark_not_ready(reason: str) -> None:
    with _lock:
        _reasons[reason] = None


def clear(reason: str) -> None:
    with _lock:
        _reasons.pop(reason, None)


def reasons() -> list[str]:
    with _lock:
        return list(_reasons)


async def ready(request: Request) -> JSONResponse:
    """`GET /ready`: 200 when there is no reason not to be, else 503 with them."""
    found = reasons()
    if not found:
        return JSONResponse({"ready": True})
    return JSONResponse({"ready": False, "reasons": found}, status_code=503, headers={"Retry-After": "1"})
