"""argc (sigoden/argc): the comment tags read as text (`tags.py`, shared by discovery
and the shim), and a compatible `argc --argc-eval` (`shim.py`, run as `bin/argc`)."""

from __future__ import annotations

from pathlib import Path

SHIM_BIN = Path(__file__).parent / "bin"
