"""How an opted-in fallback program runs: its `args`, each item one word, exactly as given."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkiln.conventions.words import text_form
from toolkiln.interpreters import script_command
from toolkiln.model import CompiledTool


def fallback_argv(script: Path, tool: CompiledTool, arguments: Mapping[str, Any]) -> list[str]:
    """The opted-in program and the client's `args`, each item one word, exactly as given:
    the user who opted it in gave the client its whole command line (docs/security.md)."""
    return [*script_command(script), *(text_form(item) for item in arguments.get("args", []))]
