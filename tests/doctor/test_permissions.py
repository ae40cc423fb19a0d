"""doctor's security checks of file modes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.doctor.helpers import ANNOTATED, doctor, found, pipeline


def test_scripts_and_folders_others_can_change(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    group = make_tool("group/run.sh", ANNOTATED)
    world = make_tool("world.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    group.chmod(0o775)
    world.chmod(0o757)
    tools_dir.chmod(0o777)
    findings = {f.path: f for f in found(doctor(tools_dir, config_dir), "writable-by-others")}
    assert set(findings) == {str(group), str(world), str(tools_dir)}
    assert (
        findings[str(group)].severity == "warning" and "its group (mode 775)" in findings[str(group)].message
    )
    assert (
        findings[str(world)].severity == "error" and "every user (mode 757)" in findings[str(world)].message
    )
    assert findings[str(tools_dir)].message.startswith("this folder can be changed by every user")
    assert findings[str(world)].fix == f"chmod go-w {world} (doctor --fix does it)"


def test_configs_others_can_change(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("t/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    (config_dir / "tools" / "t.json").chmod(0o666)
    (config_dir / "tools.json").chmod(0o664)
    findings = {f.path: f.severity for f in found(doctor(tools_dir, config_dir), "writable-by-others")}
    assert findings == {
        str(config_dir / "tools" / "t.json"): "error",
        str(config_dir / "tools.json"): "warning",
    }


def test_a_token_others_can_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tools_dir: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    token = tmp_path / "xdg" / "toolkiln" / "token"
    token.parent.mkdir(parents=True)
    token.write_text("secret\n")
    token.chmod(0o600)
    assert not found(doctor(tools_dir, tmp_path / "config"), "token-readable")
    token.chmod(0o644)
    [finding] = found(doctor(tools_dir, tmp_path / "config"), "token-readable")
    assert (finding.severity, finding.path, finding.fix) == (
        "warning",
        str(token),
        f"chmod 600 {token} (doctor --fix does it)",
    )


def test_hidden_and_skipped_folders_are_not_searched(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("t/run.sh", ANNOTATED)
    for folder in (".git", "node_modules"):
        (tools_dir / folder).mkdir()
        (tools_dir / folder / "loose").write_text("x")
        (tools_dir / folder / "loose").chmod(0o666)
    pipeline(tools_dir, config_dir)
    assert not found(doctor(tools_dir, config_dir), "writable-by-others")
    (tools_dir / "t" / "data").mkdir(mode=0o777)
    (tools_dir / "t" / "data").chmod(0o777)
    [finding] = found(doctor(tools_dir, config_dir), "writable-by-others")
    assert finding.path == str(tools_dir / "t" / "data")


def test_fix_fixes_every_mode_problem_it_reports(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    token = tmp_path / "xdg" / "toolkiln" / "token"
    token.parent.mkdir(parents=True)
    token.write_text("secret\n")
    token.chmod(0o644)
    world = make_tool("world.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    world.chmod(0o757)
    (config_dir / "tools.json").chmod(0o664)
    before = doctor(tools_dir, config_dir)
    modes = [f for f in before.findings if f.check in ("writable-by-others", "token-readable")]
    assert len(modes) == 3 and all(f.fixable for f in modes)
    after = doctor(tools_dir, config_dir, fix=True)
    assert not [f for f in after.findings if f.check in ("writable-by-others", "token-readable")]
    assert {f"chmod go-w {world}", f"chmod go-w {config_dir / 'tools.json'}", f"chmod 600 {token}"} <= set(
        after.fixed
    )
    assert (world.stat().st_mode & 0o777, token.stat().st_mode & 0o777) == (0o755, 0o600)
