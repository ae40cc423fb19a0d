"""doctor's checks of tool names and counts, as clients see them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeTool
from tests.doctor.helpers import ANNOTATED, doctor, found, pipeline


def test_a_name_too_long_once_prefixed(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    long_name = "summarise-the-quarterly-sales-figures-by-sales-region"
    assert len(long_name) == 53
    make_tool(f"{long_name}/run.sh", ANNOTATED)
    make_tool("short/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    [finding] = found(doctor(tools_dir, config_dir), "name-too-long")
    assert (finding.severity, finding.path) == ("warning", str(config_dir / "tools" / f"{long_name}.json"))
    assert f"Claude Code calls it mcp__toolkiln__{long_name} (68 > 64)" in finding.message
    assert "Cursor counts 61 characters of server and tool name (> 59)" in finding.message
    assert "at most 49 characters" in finding.fix
    assert not found(doctor(tools_dir, config_dir, server_name="tk"), "name-too-long")


def test_the_budget_depends_on_the_server_name(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    name = "summarise-the-quarterly-sales-figures"  # 37 characters
    make_tool(f"{name}/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    assert not found(doctor(tools_dir, config_dir), "name-too-long")
    server = "my-team-tools-server"  # 20: mcp__ + 20 + __ + 37 = 64, fine for Claude Code
    [finding] = found(doctor(tools_dir, config_dir, server_name=server + "s"), "name-too-long")
    assert f"Claude Code calls it mcp__{server}s__{name} (65 > 64)" in finding.message
    assert "Cursor counts 58" not in finding.message
    assert "at most 36 characters" in finding.fix
    [both] = found(doctor(tools_dir, config_dir, server_name=server + "-longer"), "name-too-long")
    assert "Claude Code" in both.message and "Cursor counts 64 characters" in both.message


def test_two_tools_with_one_name_and_names_that_differ_in_case(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    for folder in ("one", "two", "Three", "three"):
        make_tool(f"{folder}/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    config = config_dir / "tools" / "two.json"
    data = json.loads(config.read_text())
    data["script_config"]["name"] = "one"
    config.write_text(json.dumps(data))
    findings = found(doctor(tools_dir, config_dir), "name-collision")
    [error] = [f for f in findings if f.severity == "error"]
    assert (
        error.path == str(config) and f"also the name in {config_dir / 'tools' / 'one.json'}" in error.message
    )
    [warning] = [f for f in findings if f.severity == "warning"]
    assert "Three, three differ only in case" in warning.message


def test_a_name_that_starts_with_a_digit(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("2fa/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    [finding] = found(doctor(tools_dir, config_dir), "name-start")
    assert finding.severity == "warning" and "'2fa' starts with a digit" in finding.message


def test_more_tools_than_cursor_takes(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    for number in range(41):
        make_tool(f"t{number}.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    [finding] = found(doctor(tools_dir, config_dir), "too-many-tools")
    assert finding.severity == "warning"
    assert "41 tools are enabled, and Cursor takes only 40" in finding.message
    config = config_dir / "tools" / "t0.json"
    config.write_text(config.read_text().replace('"enabled": true', '"enabled": false'))
    assert not found(doctor(tools_dir, config_dir), "too-many-tools"), "disabled tools do not count"
