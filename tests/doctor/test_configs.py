"""doctor's checks of the config folder: invalid and orphaned configs, the build."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.conftest import MakeTool
from tests.doctor.helpers import ANNOTATED, HELP_JSON, doctor, found, pipeline


def test_an_invalid_per_tool_config_names_file_line_and_field(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("t/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    config = config_dir / "tools" / "t.json"
    data = json.loads(config.read_text())
    data["script_config"]["timeout_seconds"] = -1
    config.write_text(json.dumps(data, indent=2))
    report = doctor(tools_dir, config_dir)
    [finding] = found(report, "invalid-config")
    assert (finding.severity, finding.path) == ("error", str(config))
    assert finding.line == next(
        number for number, line in enumerate(config.read_text().splitlines(), 1) if "timeout_seconds" in line
    )
    assert "script_config.timeout_seconds" in finding.message and "greater than 0" in finding.message
    assert "delete the file" in finding.fix
    assert len(report.findings) == len({(f.check, f.path, f.line) for f in report.findings}), "no duplicates"


def test_a_config_whose_script_is_gone(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    script = make_tool("t/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    script.unlink()
    [finding] = found(doctor(tools_dir, config_dir), "orphan-config")
    assert (finding.severity, finding.path) == ("warning", str(config_dir / "tools" / "t.json"))
    assert str(script) in finding.message
    assert f"delete {config_dir / 'tools' / 't.json'}" in finding.fix


def test_a_disabled_tool_is_mentioned(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("t/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    config = config_dir / "tools" / "t.json"
    config.write_text(config.read_text().replace('"enabled": true', '"enabled": false'))
    [finding] = found(doctor(tools_dir, config_dir), "disabled")
    assert finding.severity == "info" and "'t' is disabled" in finding.message


def test_a_missing_build(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("t/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    (config_dir / "tools.json").unlink()
    [finding] = found(doctor(tools_dir, config_dir), "not-built")
    assert (finding.severity, finding.fixable) == ("warning", True)


def test_a_build_older_than_a_config_is_stale(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("t/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    assert not found(doctor(tools_dir, config_dir), "stale-build")
    catalog = config_dir / "tools.json"
    before = catalog.stat().st_mtime
    os.utime(config_dir / "tools" / "t.json", (before + 5, before + 5))
    [finding] = found(doctor(tools_dir, config_dir), "stale-build")
    assert (finding.severity, finding.fixable, finding.path) == ("warning", True, str(catalog))
    assert str(config_dir / "tools" / "t.json") in finding.message


def test_deleting_a_config_makes_the_build_stale(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("t/run.sh", ANNOTATED)
    make_tool("u/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    catalog = config_dir / "tools.json"
    os.utime(catalog, (catalog.stat().st_mtime - 5,) * 2)
    for config in (config_dir / "tools").iterdir():
        os.utime(config, (catalog.stat().st_mtime - 10,) * 2)
    (config_dir / "tools" / "u.json").unlink()  # the folder's mtime moves on
    [finding] = found(doctor(tools_dir, config_dir), "stale-build")
    assert str(config_dir / "tools") in finding.message


def test_an_unreadable_build_is_a_fixable_error(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("t/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    (config_dir / "tools.json").write_text("{not json")
    [finding] = found(doctor(tools_dir, config_dir), "invalid-build")
    assert (finding.severity, finding.fixable) == ("error", True)
    assert "invalid JSON" in finding.message


def test_an_empty_project_says_how_to_start(tools_dir: Path, config_dir: Path) -> None:
    [finding] = found(doctor(tools_dir, config_dir), "no-tools")
    assert finding.severity == "info" and "toolkiln new NAME" in finding.fix


def test_readings_that_are_guesses_are_named_for_the_user_to_check(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("hi.sh", HELP_JSON)
    pipeline(tools_dir, config_dir)
    path = config_dir / "tools" / "hi.json"
    data = json.loads(path.read_text())
    data["script_config"]["guessed"] = ["description", "parameters.name.type"]
    path.write_text(json.dumps(data))
    [finding] = found(doctor(tools_dir, config_dir), "guessed")
    assert finding.severity == "info" and finding.path == str(path)
    assert "description, parameters.name.type" in finding.message and "kept on rediscovery" in finding.fix
