"""How arguments reach a Python Fire script (placeholder until the Fire reader lands)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkiln.errors import ProcessStartError
from toolkiln.model import CompiledTool


def fire_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    raise ProcessStartError("Python Fire scripts are not read yet")
