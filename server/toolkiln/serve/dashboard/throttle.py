"""Failed dashboard logins, limited: per client address and for all clients together.

Two token buckets: each client may fail `CLIENT_BURST` times, then once every
`CLIENT_SECONDS`; all clients together `OVERALL_BURST` times, then once a second (many
addresses, one attacker). A login while either bucket is empty is answered 429 with
`Retry-After`, before its token is even compared: a right guess then counts for nothing.
A success forgets the client's failures. The per-client table is bounded: past
`MAX_CLIENTS` addresses the least recently seen is forgotten (the overall bucket still
holds), and a bucket that has refilled is dropped, so the limiter cannot grow the server.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from dataclasses import dataclass

CLIENT_BURST = 10
CLIENT_SECONDS = 6.0
OVERALL_BURST = 100
OVERALL_SECONDS = 1.0
MAX_CLIENTS = 4096


@dataclass
class _Bucket:
    burst: int
    seconds_per_token: float
    tokens: float
    updated: float

    def refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + (now - self.updated) / self.seconds_per_token)
        self.updated = now

    def wait(self) -> float:
        """Seconds until one failure may be spent (0: now)."""
        return 0.0 if self.tokens >= 1 else (1 - self.tokens) * self.seconds_per_token


class LoginThrottle:
    def __init__(
        self,
        client_burst: int = CLIENT_BURST,
        client_seconds: float = CLIENT_SECONDS,
        overall_burst: int = OVERALL_BURST,
        overall_seconds: float = OVERALL_SECONDS,
        max_clients: int = MAX_CLIENTS,
    ) -> None:
        self.client_burst, self.client_seconds = client_burst, client_seconds
        self.max_clients = max_clients
        self.overall = _Bucket(overall_burst, overall_seconds, overall_burst, time.monotonic())
        self.clients: OrderedDict[str, _Bucket] = OrderedDict()

    def retry_after(self, client: str) -> int | None:
        """Whole seconds `client` must wait before its next login, or None: it may try now."""
        now = time.monotonic()
        self.overall.refill(now)
        wait = self.overall.wait()
        bucket = self.clients.get(client)
        if bucket is not None:
            bucket.refill(now)
            wait = max(wait, bucket.wait())
            if bucket.tokens >= bucket.burst:
                del self.clients[client]
        return math.ceil(wait) if wait > 0 else None

    def failed(self, client: str) -> None:
        now = time.monotonic()
        self.overall.refill(now)
        self.overall.tokens = max(0.0, self.overall.tokens - 1)
        bucket = self.clients.pop(client, None) or _Bucket(
            self.client_burst, self.client_seconds, self.client_burst, now
        )
        bucket.refill(now)
        bucket.tokens = max(0.0, bucket.tokens - 1)
        self.clients[client] = bucket  # now the most recently seen
        while len(self.clients) > self.max_clients:
            self.clients.popitem(last=False)

    def succeeded(self, client: str) -> None:
        self.clients.pop(client, None)
