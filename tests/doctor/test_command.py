"""`toolkiln doctor` on the command line: the report, --json, --fix and the exit status."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from tests.conftest import MakeTool
from tests.doctor.helpers import ANNOTATED, HELP_JSON

REPO = Path(__file__).resolve().parent.parent.parent
RunCli = Callable[..., Result]


def test_the_report_names_file_line_severity_and_fix(
    make_tool: MakeTool, tools_dir: Path, run_cli: RunCli
) -> None:
    make_tool("broken/run.sh", "#!/bin/bash\n# Tool: b\n# Description: d\n# @param n: N (type: strin)\n")
    result = run_cli("doctor")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith(f"{tools_dir / 'broken/run.sh'}:4: error: unknown type 'strin' (known types:")
    assert lines[0].endswith(") [declaration]")
    assert lines[1] == "  fix: correct the declaration, then run `toolkiln discover`"
    assert lines[-1].startswith("1 error, 0 warnings, 3 info")


def test_a_clean_project_exits_zero(make_tool: MakeTool, run_cli: RunCli) -> None:
    make_tool("hi.sh", HELP_JSON)
    assert run_cli("discover").exit_code == 0
    assert run_cli("build").exit_code == 0
    result = run_cli("doctor")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "0 errors, 0 warnings, 2 info"


def test_json_output(make_tool: MakeTool, tools_dir: Path, run_cli: RunCli) -> None:
    make_tool("t/run.sh", ANNOTATED, executable=False)
    result = run_cli("doctor", "--json")
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["counts"] == {"error": 1, "warning": 0, "info": 3}
    [error] = [f for f in report["findings"] if f["severity"] == "error"]
    assert error == {
        "severity": "error",
        "check": "not-executable",
        "message": "is not executable, so it cannot run as a tool",
        "fix": f"chmod +x {tools_dir / 't/run.sh'} (doctor --fix does it)",
        "path": str(tools_dir / "t/run.sh"),
        "line": None,
        "fixable": True,
    }
    assert report["fixed"] == []


def test_fix_sets_the_run_bit_takes_write_access_from_others_and_rebuilds(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, run_cli: RunCli
) -> None:
    hi = make_tool("hi.sh", HELP_JSON)
    group_writable = make_tool("words/run.sh", ANNOTATED)
    assert run_cli("discover").exit_code == 0
    assert run_cli("build").exit_code == 0
    hi.chmod(0o644)
    group_writable.chmod(0o775)
    catalog = config_dir / "tools.json"
    stale = catalog.stat().st_mtime - 10
    os.utime(catalog, (stale, stale))

    before = run_cli("doctor")
    assert before.exit_code == 1
    assert "`toolkiln doctor --fix` applies the fixes that say so" in before.output

    fixed = run_cli("doctor", "--fix")
    assert fixed.exit_code == 0, fixed.output
    assert f"fixed: chmod +x {hi}" in fixed.output
    assert f"fixed: rebuilt {catalog} with 2 tools" in fixed.output
    assert os.stat(hi).st_mode & 0o777 == 0o755
    assert catalog.stat().st_mtime > stale
    assert f"fixed: chmod go-w {group_writable}" in fixed.output  # every mode problem it reports
    assert os.stat(group_writable).st_mode & 0o777 == 0o755
    assert "can be changed by its group" not in fixed.output
    assert run_cli("call", "hi").output == "hi\n"


def test_fix_reports_a_build_that_fails(make_tool: MakeTool, config_dir: Path, run_cli: RunCli) -> None:
    make_tool("t/run.sh", ANNOTATED)
    make_tool("u/run.sh", ANNOTATED)
    assert run_cli("discover").exit_code == 0
    for name in ("t", "u"):  # two tools with one name: the build cannot succeed
        config = config_dir / "tools" / f"{name}.json"
        config.write_text(config.read_text().replace(f'"name": "{name}"', '"name": "same"'))
    result = run_cli("doctor", "--fix")
    assert result.exit_code == 1
    assert f"{config_dir / 'tools.json'}: error: could not be rebuilt" in result.output
    assert "[build-failed]" in result.output and "[name-collision]" in result.output


def test_doctor_on_the_sample_tools_finds_no_errors(tmp_path: Path, run_cli: RunCli, tools_dir: Path) -> None:
    shutil.rmtree(tools_dir)
    shutil.copytree(REPO / "tools", tools_dir)
    assert run_cli("discover").exit_code == 0
    assert run_cli("build").exit_code == 0
    result = run_cli("doctor", "--json")
    assert json.loads(result.output)["counts"]["error"] == 0, result.output
    assert result.exit_code == 0


def test_fix_serves_a_new_script_that_lacked_the_run_bit(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, run_cli: RunCli
) -> None:
    """What the README promises: after `doctor --fix`, a new script is a tool that runs."""
    make_tool("hi.sh", HELP_JSON)
    assert run_cli("discover").exit_code == 0
    assert run_cli("build").exit_code == 0
    forecast = make_tool(
        "forecast.sh",
        "#!/bin/bash\n# Tool: forecast\n# Description: The weather\necho sunny\n",
        executable=False,
    )
    fixed = run_cli("doctor", "--fix")
    assert fixed.exit_code == 0, fixed.output
    assert f"fixed: chmod +x {forecast}" in fixed.output
    assert (
        f"fixed: discovered the tool 'forecast' (created {config_dir / 'tools' / 'forecast.json'})"
        in fixed.output
    )
    assert "[not-discovered]" not in fixed.output
    assert run_cli("call", "forecast").output == "sunny\n"
