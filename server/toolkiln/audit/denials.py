"""Denied requests, written down without letting them push the calls out of the log.

Anyone who reaches the port can be denied, as often and with as long a path or Host as
they like; a record per denial would let them rotate every call record out of the log.
So denials are kept apart from calls, and bounded three ways:

- their own file beside the log (`audit.denied.jsonl` for `audit.jsonl`), rotated on its
  own: a flood of denials rotates that file, never the calls' (log.py);
- each value of a denial cut to `DENIAL_FIELD` characters (path, Host, Origin, reason);
- a budget per minute: each client's first `FULL_PER_CLIENT` denials of each status in
  a window (so the first 429 after a run of 401s is still seen), and `FULL_OVERALL` of
  all clients, are written one by one; the rest are counted, and when
  the window is over one summary record says how many more there were, from whom (the
  `SUMMARY_CLIENTS` busiest addresses by name, the others as one number) and with which
  status. A window writes at most `FULL_OVERALL` short records and one summary.

This module only decides; log.py writes.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

DENIAL_FIELD = 200  # characters kept of each value of a denial
WINDOW_SECONDS = 60.0
FULL_PER_CLIENT = 10  # denials of one client and status written whole in a window
FULL_OVERALL = 60  # denials of all clients written whole in a window
MAX_CLIENTS = 1024  # clients counted by name in a window; past it, counted as "others"
SUMMARY_CLIENTS = 20  # clients named in a summary (the busiest)
OTHERS = "(other addresses)"


def denial_path(path: Path) -> Path:
    """Where the denials of the log at `path` go: `audit.jsonl` -> `audit.denied.jsonl`."""
    return path.with_name(f"{path.stem}.denied{path.suffix}")


def shorten(value: Any) -> Any:
    """A denial's value cut to `DENIAL_FIELD` characters, with how much was cut."""
    if isinstance(value, str) and len(value) > DENIAL_FIELD:
        return f"{value[:DENIAL_FIELD]}…[{len(value) - DENIAL_FIELD} more characters cut]"
    return value


@dataclass
class _Window:
    started: float  # time.time()
    written: Counter[tuple[str, int]] = field(default_factory=Counter)  # whole, per client and status
    counted: Counter[str] = field(default_factory=Counter)  # not written, per client
    statuses: Counter[str] = field(default_factory=Counter)  # of those counted

    @property
    def written_total(self) -> int:
        return sum(self.written.values())


class DenialBudget:
    """Which denials are written whole, and the summaries of the rest (see the module)."""

    def __init__(
        self,
        window_seconds: float = WINDOW_SECONDS,
        full_per_client: int = FULL_PER_CLIENT,
        full_overall: int = FULL_OVERALL,
    ) -> None:
        self.window_seconds = window_seconds
        self.full_per_client, self.full_overall = full_per_client, full_overall
        self._window: _Window | None = None

    def admit(
        self, client: str | None, status: int, now: float | None = None
    ) -> tuple[bool, list[dict[str, Any]]]:
        """Whether this denial is written whole, and the summary records due first (the
        window before this one, if it counted denials it did not write)."""
        now = time.time() if now is None else now
        due = self.due(now)
        if self._window is None:
            self._window = _Window(started=now)
        window, key = self._window, str(shorten(client or "-"))
        whole = (
            window.written[key, status] < self.full_per_client and window.written_total < self.full_overall
        )
        if whole:
            window.written[key, status] += 1
        else:
            if key not in window.counted and len(window.counted) >= MAX_CLIENTS:
                key = OTHERS
            window.counted[key] += 1
            window.statuses[str(status)] += 1
        return whole, due

    def due(self, now: float | None = None) -> list[dict[str, Any]]:
        """The summary of the window just over (and ends it), if it is over and counted any."""
        now = time.time() if now is None else now
        window = self._window
        if window is None or now - window.started < self.window_seconds:
            return []
        self._window = None
        return self._summaries(window, now)

    def flush(self) -> list[dict[str, Any]]:
        """The summary of the window so far, whether or not it is over (at shutdown)."""
        window, self._window = self._window, None
        return [] if window is None else self._summaries(window, time.time())

    def _summaries(self, window: _Window, now: float) -> list[dict[str, Any]]:
        count = sum(window.counted.values())
        if not count:
            return []
        busiest = dict(window.counted.most_common(SUMMARY_CLIENTS))
        others = count - sum(busiest.values())
        seconds = round(now - window.started)
        since = datetime.fromtimestamp(window.started, UTC).isoformat(timespec="seconds")
        named = ", ".join(f"{n} from {client}" for client, n in busiest.items())
        return [
            {
                "event": "denied_summary",
                "transport": "http",
                "success": False,
                "count": count,
                "since": since,
                "clients": busiest,
                "other_clients_count": others,
                "statuses": dict(window.statuses),
                "error": (
                    f"{count} more denials in the {seconds} s since {since}, not written one by one: "
                    f"{named}" + (f", {others} from other addresses" if others else "")
                ),
            }
        ]
