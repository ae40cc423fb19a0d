"""Python files that are tools without a declaration of their own: a Windmill-style
`def main(name: str, ...)` (keywords, like llm-functions' `run`) and a documented script
that takes no arguments."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MakeTool
from toolkiln.discover import discover_tools
from toolkiln.files import load_tool_config, tool_config_path

WINDMILL = '''
from typing import Literal


async def main(repo: str, limit: int = 10, state: Literal["open", "closed"] = "open") -> list:
    """List a repository's issues."""
    return [repo, limit, state]
'''

NO_ARGUMENTS = '''#!/usr/bin/env python3
"""Print today's date and the week number.

Longer notes that are not the description.
"""
import datetime

if __name__ == "__main__":
    print(datetime.date.today().strftime("%Y-%m-%d, week %V"))
'''


def test_main_with_typed_keywords_is_a_function_tool(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("issues.py", WINDMILL, executable=False)
    report = discover_tools(tools_dir, config_dir, probes="none")
    assert not report.errors, report.errors
    script = load_tool_config(tool_config_path(config_dir, "issues")).script_config
    assert (script.python_entry, script.command, script.description) == (
        "run(**)",
        "main",
        "List a repository's issues.",
    )
    params = {p.name: p for p in script.parameters}
    assert (
        params["repo"].required
        and params["limit"].default == 10
        and params["state"].enum == ["open", "closed"]
    )


def test_a_documented_script_without_arguments_is_a_tool(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("today.py", NO_ARGUMENTS)
    make_tool(
        "silent.py",
        NO_ARGUMENTS.replace('"""Print', "# Print").replace(
            'number.\n\nLonger notes that are not the description.\n"""', "number."
        ),
    )
    make_tool("reads.py", NO_ARGUMENTS.replace("import datetime", "import datetime, sys\nprint(sys.argv)"))
    report = discover_tools(tools_dir, config_dir, probes="unconfined")
    script = load_tool_config(tool_config_path(config_dir, "today")).script_config
    assert (script.python_entry, script.parameters) == ("script", [])
    assert script.description == "Print today's date and the week number."
    kinds = {v.path: v.kind for v in report.not_tools}
    assert kinds["silent.py"] == "undocumented-script"
    assert kinds["reads.py"] == "plain-help"  # it reads its own arguments: its `--help` is asked


INLINE_DEPENDENCIES = '''#!/usr/bin/env -S uv run --script
# /// script
# requires-python = ">=3.10"
# dependencies = []
# ///
"""Say which Python runs this script."""
import argparse
import os
import sys

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--word", required=True)
    args = parser.parse_args()
    print(args.word, "uv" if os.environ.get("UV") else "plain", sys.prefix != sys.base_prefix)
'''


def test_inline_dependencies_without_uv_are_a_warning(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import toolkiln.interpreters

    make_tool("which.py", INLINE_DEPENDENCIES)
    monkeypatch.setattr(toolkiln.interpreters, "find_uv", lambda: None)
    report = discover_tools(tools_dir, config_dir, probes="none")
    [warning] = [w for w in report.warnings if w.path == "which.py"]
    assert "uv is not installed" in str(warning)
    assert [tool.name for tool in report.tools] == ["which"]
