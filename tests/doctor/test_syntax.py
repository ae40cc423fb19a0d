"""doctor's syntax checks: `bash -n` on shell tools, `node --check` on JavaScript tools,
each reported at its file and line, and neither running anything of the script."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.doctor.helpers import ANNOTATED, doctor, found, pipeline

KIT = """\
#!/usr/bin/env node
// Name: Deploy
// Description: Deploy the site
schema = { input: { target: { type: 'string' } } }
console.log('deployed');
"""


def test_a_shell_tool_that_does_not_parse_is_an_error_at_its_line(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    script = make_tool("t/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    assert found(doctor(tools_dir, config_dir), "syntax") == []
    marker = tmp_path / "ran"
    script.write_text(ANNOTATED + f"touch {marker}\nif true; then\n  echo never closed\n")
    [finding] = found(doctor(tools_dir, config_dir), "syntax")
    assert (finding.severity, finding.path, finding.line) == ("error", str(script), 9)
    assert "does not parse (bash -n)" in finding.message and "end of file" in finding.message
    assert finding.fix == f"correct the script at line 9, then check it with `bash -n {script}`"
    assert not marker.exists(), "bash -n runs nothing"


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_a_javascript_tool_that_does_not_parse_is_an_error_at_its_line(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    script = make_tool("deploy.js", KIT)
    pipeline(tools_dir, config_dir)
    assert found(doctor(tools_dir, config_dir), "syntax") == []
    marker = tmp_path / "ran"
    script.write_text(KIT + f"require('fs').writeFileSync('{marker}', 'x');\nif (true {{\n")
    [finding] = found(doctor(tools_dir, config_dir), "syntax")
    assert (finding.severity, finding.path, finding.line) == ("error", str(script), 7)
    assert "does not parse (node --check): SyntaxError: Unexpected token" in finding.message
    assert not marker.exists(), "node --check runs nothing"


def test_the_parsers_load_nothing_the_environment_names(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BASH_ENV is a script bash runs first, NODE_OPTIONS may `--require` one: neither
    reaches the parsers, which get PATH alone."""
    marker = tmp_path / "ran"
    preload = tmp_path / "preload.sh"
    preload.write_text(f"touch {marker}\n")
    preload_js = tmp_path / "preload.js"
    preload_js.write_text(f"require('fs').writeFileSync('{marker}', 'x');\n")
    monkeypatch.setenv("BASH_ENV", str(preload))
    monkeypatch.setenv("NODE_OPTIONS", f"--require {preload_js}")
    make_tool("t/run.sh", ANNOTATED + "if true; then\n")
    make_tool("deploy.js", KIT + "if (true {\n")
    monkeypatch.delenv("NODE_OPTIONS")  # discovery reads the files; it runs neither
    pipeline(tools_dir, config_dir)
    monkeypatch.setenv("NODE_OPTIONS", f"--require {preload_js}")
    findings = found(doctor(tools_dir, config_dir), "syntax")
    assert len(findings) == (2 if shutil.which("node") else 1)
    assert not marker.exists()


def test_a_script_that_turns_extglob_on_parses(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("t/run.sh", ANNOTATED + 'shopt -s extglob\ncase "$word" in +([0-9])) echo number ;; esac\n')
    pipeline(tools_dir, config_dir)
    assert found(doctor(tools_dir, config_dir), "syntax") == []


def test_a_script_whose_name_starts_with_a_dash_is_parsed_not_read_as_an_option(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = make_tool("-n/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    script.write_text(ANNOTATED + "if true; then\n")
    monkeypatch.chdir(tools_dir)  # `--tools-dir .`: the script is `-n/run.sh`
    [finding] = found(doctor(Path("."), config_dir), "syntax")
    assert (finding.path, finding.line) == ("-n/run.sh", 7)
