"""Why a file is not a tool: per file (`discover --list`, `--json`) and one hint per
shared reason (after `discover`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from tests.conftest import MakeTool
from tests.discover.test_core import discover
from toolkiln.discover.reasons import summarise
from toolkiln.discover.report import NotTool


def write_mixed_folder(make_tool: MakeTool, tools_dir: Path) -> None:
    make_tool("greet.sh", "#!/bin/sh\n# Tool: greet\n# Description: Greets\necho hi\n")
    for name in ("backup.sh", "deploy.sh", "rotate.sh"):
        make_tool(name, f'#!/bin/sh\necho "usage: {name} [options] TARGET" >&2\nexit 2\n')
    make_tool("silent.sh", "#!/bin/sh\nexit 3\n")
    make_tool("helper.sh", '#!/bin/bash\nlog() { echo "$@"; }\n', executable=False)
    make_tool("lib/util.py", "def slug(text):\n    return text.lower()\n", executable=False)
    make_tool("lib/__init__.py", "", executable=False)
    make_tool("README.md", "# my scripts\n", executable=False)
    make_tool("logo.png", "\x89PNG\x00\x00", executable=False)


def test_each_file_that_is_not_a_tool_says_why(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    write_mixed_folder(make_tool, tools_dir)
    report = discover(tools_dir, config_dir)
    assert [tool.name for tool in report.tools] == ["greet"]
    assert {v.path: v.kind for v in report.not_tools} == {
        "README.md": "data",
        "logo.png": "data",
        "backup.sh": "plain-help",
        "deploy.sh": "plain-help",
        "rotate.sh": "plain-help",
        "silent.sh": "help-failed",
        "helper.sh": "not-executable",
        "lib/util.py": "library",
        "lib/__init__.py": "empty",
    }
    assert not report.errors


def test_hints_group_files_by_reason_the_actionable_first() -> None:
    verdicts = [NotTool(f"s{i}.sh", "plain-help", "r") for i in range(12)]
    verdicts += [NotTool("a.md", "data", "r"), NotTool("h.sh", "not-executable", "r")]
    hints = summarise(verdicts)
    assert hints[0].startswith("12 executables answer `--help` with plain text")
    assert "fallback" in hints[0] and "sidecar" in hints[0] and "`# @param`" in hints[0]
    assert hints[1].startswith("1 script declares nothing toolkiln reads")
    assert hints[2] == "1 file is data or documentation, not scripts"


def test_no_hint_when_the_other_files_are_plainly_not_tools() -> None:
    assert summarise([NotTool("README.md", "data", "r"), NotTool("__init__.py", "empty", "r")]) == []


def test_discover_prints_the_hints_and_list_says_why_per_file(
    make_tool: MakeTool, tools_dir: Path, run_cli: Callable[..., Result]
) -> None:
    write_mixed_folder(make_tool, tools_dir)
    listed = run_cli("discover", "--list")  # runs no script: executables are not probed
    assert listed.exit_code == 0, listed.output
    assert "lib/util.py" in listed.output and "a Python module with no entry point" in listed.output
    assert "backup.sh: not probed: this command runs no script" in listed.output
    result = run_cli("discover", "--unconfined-probes")
    assert result.exit_code == 0, result.output
    assert "9 files are not tools:" in result.output
    assert "  3 executables answer `--help` with plain text" in result.output
    assert "`toolkiln discover --list` says why for each file." in result.output
    listed = run_cli("discover", "--list")  # now from the index: what the probes said
    assert "backup.sh        answers `--help` with plain text (exit status 2)" in listed.output
    as_json = json.loads(run_cli("discover", "--list", "--json").stdout)
    assert {
        "path": "silent.sh",
        "kind": "help-failed",
        "reason": "`--help` printed nothing (exit status 3)",
    } in (as_json["not_tools"])


def test_hints_name_the_files_up_to_a_cap() -> None:
    verdicts = [NotTool(f"s{i}.sh", "plain-help", "r") for i in range(7)]
    verdicts += [NotTool("slow", "help-timeout", "r"), NotTool("README.md", "data", "r")]
    plain, slow, data = summarise(verdicts)
    assert plain.endswith("(files: s0.sh, s1.sh, s2.sh, s3.sh, s4.sh and 2 more)")
    assert slow.startswith("1 executable did not answer `--help` in time") and slow.endswith("(files: slow)")
    assert data == "1 file is data or documentation, not scripts"  # plainly not a tool: named in --list only


def test_a_script_that_never_answers_help_is_named_and_list_gives_the_reason(
    make_tool: MakeTool, tools_dir: Path, run_cli: Callable[..., Result]
) -> None:
    make_tool("greet.sh", "#!/bin/sh\n# Tool: greet\n# Description: Greets\necho hi\n")
    make_tool("bin/slow", "#!/bin/sh\nsleep 60\n")
    result = run_cli("discover", "--unconfined-probes", "--probe-timeout", "0.5")
    assert result.exit_code == 0, result.output
    assert "1 executable did not answer `--help` in time" in result.output
    assert "(files: bin/slow)" in result.output
    listed = run_cli("discover", "--list")  # the reason discovery found, not "not probed"
    assert "not probed" not in listed.output
    assert "bin/slow  `--help` did not finish within 0.5 s" in listed.output
