"""The variables a shipped runtime reads (argc's `LLM_OUTPUT`, mcp-bash's `MCP_SDK`) are
toolkiln's: a parameter that happens to share the name cannot let a client choose where a
script writes or which SDK it sources."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from tests.conftest import MakeTool

ARGC_WRITER = """\
#!/usr/bin/env bash
# @describe Writes its answer where llm-functions says
# @option --LLM_OUTPUT  A parameter that shares the runtime's variable name
main() {
    echo "answer" >> "$LLM_OUTPUT"
}
eval "$(argc --argc-eval "$0" "$@")"
"""


def test_an_argument_cannot_choose_where_an_argc_script_writes(
    make_tool: MakeTool, run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    make_tool("writer.sh", ARGC_WRITER)
    assert run_cli("discover", "--unconfined-probes").exit_code == 0
    assert run_cli("build").exit_code == 0
    target = tmp_path / "chosen-by-the-client"
    result = run_cli("call", "writer", f"LLM_OUTPUT={target}")
    assert result.exit_code == 0, result.output
    assert "answer" in result.stdout
    assert not target.exists()
