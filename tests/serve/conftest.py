"""Fixtures shared by the serve tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MakeTool
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

ECHO_WORD = """
#!/bin/bash
# Tool: echo
# Description: Says the word back
# @param word: The word (type: string, required: true)
printf '%s' "$word"
"""


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    """A built config folder serving one tool, `echo`, which says its `word` back."""
    make_tool("echo.sh", ECHO_WORD)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir
