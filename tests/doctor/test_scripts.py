"""doctor's checks of the scripts: discovery's errors, the run bit, the #! line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.doctor.helpers import ANNOTATED, HELP_JSON, doctor, found, pipeline
from toolkiln.discover import discover_tools


@pytest.mark.parametrize(
    ("param_line", "message"),
    [
        ("# @param n: N (type: strin)", "unknown type 'strin'"),
        ("# @param n: N (type: integer, default: abc)", "default 'abc' is not a valid integer"),
        ("# @param n: N (type: enum, enum: x|y, default: z)", "default 'z': is not one of ['x', 'y']"),
        ("# @param n: N (type: integer, min: 5, max: 1)", "'min' (5) is greater than 'max' (1)"),
    ],
)
def test_discovery_errors_are_reported_with_file_and_line(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, param_line: str, message: str
) -> None:
    make_tool("broken/run.sh", f"#!/bin/bash\n# Tool: b\n# Description: d\n{param_line}\n")
    report = doctor(tools_dir, config_dir)
    [finding] = found(report, "declaration")
    assert (finding.severity, finding.path, finding.line) == ("error", str(tools_dir / "broken/run.sh"), 4)
    assert message in finding.message
    assert "toolkiln discover" in finding.fix
    assert report.has_errors
    assert not (config_dir / "tools").exists(), "doctor writes no config"


def test_a_help_json_schema_mistake_names_the_file(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "calc.sh",
        """\
        #!/bin/bash
        echo '{"description": "Adds"}'
        echo '{"a": {"description": "A", "value_type": "integr", "required": true}}' >&2
        """,
    )
    # doctor runs no script: it says so, and discover (which probes, confined) names the mistake
    [unprobed] = found(doctor(tools_dir, config_dir), "not-discovered")
    assert unprobed.path == str(tools_dir / "calc.sh") and "doctor runs no script" in unprobed.message
    [error] = discover_tools(tools_dir, config_dir, probes="unconfined").errors
    assert error.path == "calc.sh" and "integr" in error.reason


def test_a_parameter_named_like_a_sensitive_variable_is_an_error(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("p.sh", "#!/bin/bash\n# Tool: p\n# Description: d\n# @param LD_PRELOAD: x\n")
    [finding] = found(doctor(tools_dir, config_dir), "env-shadowing")
    assert (finding.severity, finding.line) == ("error", 4)
    assert "would overwrite the environment variable LD_PRELOAD" in finding.message


def test_a_run_sh_without_the_run_bit_is_a_fixable_error(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("t/run.sh", ANNOTATED, executable=False)
    [finding] = found(doctor(tools_dir, config_dir), "not-executable")
    assert (finding.severity, finding.fixable, finding.path) == ("error", True, str(tools_dir / "t/run.sh"))
    assert f"chmod +x {tools_dir / 't/run.sh'}" in finding.fix
    assert found(doctor(tools_dir, config_dir), "declaration") == [], "reported once, not twice"


def test_a_tool_that_lost_its_run_bit_is_a_fixable_error(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    script = make_tool("hi.sh", HELP_JSON)
    pipeline(tools_dir, config_dir)
    script.chmod(0o644)
    [finding] = found(doctor(tools_dir, config_dir), "not-executable")
    assert (finding.severity, finding.fixable) == ("error", True)


def test_an_annotated_script_without_the_run_bit_is_fixable(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("words.sh", ANNOTATED, executable=False)  # discovery skips it silently
    [finding] = found(doctor(tools_dir, config_dir), "not-executable")
    assert (finding.severity, finding.fixable) == ("error", True)


def test_a_script_with_a_shebang_and_no_run_bit_is_a_warning(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("helper.sh", "#!/bin/bash\necho helping\n", executable=False)
    make_tool("notes.txt", "just text\n", executable=False)
    make_tool(
        "module.py", '"""Doc.\n\n@param a: A\n"""\n\ndef execute(params):\n    return 1\n', executable=False
    )
    make_tool("tool/run.sh", ANNOTATED)
    make_tool("tool/lib.sh", "#!/bin/bash\n", executable=False)  # a tool folder's own file
    [finding] = found(doctor(tools_dir, config_dir), "not-executable")
    assert (finding.severity, finding.fixable, finding.line) == ("warning", False, 1)
    assert finding.path == str(tools_dir / "helper.sh")
    assert "discovery skips it" in finding.message


def test_a_script_without_a_shebang_line(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    script = make_tool("hi", HELP_JSON)
    by_bash = make_tool("hello.sh", HELP_JSON.replace("Says hi", "Says hello"))
    pipeline(tools_dir, config_dir)
    script.write_text(HELP_JSON.removeprefix("#!/bin/bash\n"))
    by_bash.write_text(HELP_JSON.removeprefix("#!/bin/bash\n"))  # the runner starts it with bash
    [finding] = found(doctor(tools_dir, config_dir), "shebang")
    assert (finding.severity, finding.path, finding.line) == ("error", str(script), 1)
    assert "cannot start" in finding.message and "#!/bin/bash" in finding.fix


def test_a_shebang_naming_a_missing_interpreter(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    via_env = make_tool("hi.sh", HELP_JSON)
    absolute = make_tool("direct/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    via_env.write_text(HELP_JSON.replace("#!/bin/bash", "#!/usr/bin/env -S toolkiln-no-such-shell -e"))
    absolute.write_text(ANNOTATED.replace("#!/bin/bash", "#!/opt/nowhere/zsh"))
    findings = {f.path: f for f in found(doctor(tools_dir, config_dir), "interpreter")}
    assert set(findings) == {str(via_env), str(absolute)}
    assert "names toolkiln-no-such-shell, which is not installed" in findings[str(via_env)].message
    assert "names /opt/nowhere/zsh" in findings[str(absolute)].message
    assert {f.line for f in findings.values()} == {1}


def test_a_kit_script_whose_shebang_names_a_missing_interpreter(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    kit = "#!/usr/bin/env {}\n// Name: Shout\n// Description: d\n"
    kit += "schema = {{ input: {{ w: {{ type: 'string' }} }} }}\n"
    script = make_tool("shout.js", kit.format("node"))
    pipeline(tools_dir, config_dir)  # kit discovery reads the file and never runs it
    script.write_text(kit.format("toolkiln-no-such-node"))
    [finding] = found(doctor(tools_dir, config_dir), "interpreter")
    assert (finding.path, finding.line) == (str(script), 1)
    assert "toolkiln-no-such-node" in finding.message


def test_no_tools_folder(tmp_path: Path) -> None:
    report = doctor(tmp_path / "missing", tmp_path / "config")
    [finding] = found(report, "tools-folder")
    assert finding.severity == "error" and "toolkiln new NAME" in finding.fix


def test_a_healthy_project_has_no_errors_or_warnings(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("t/run.sh", ANNOTATED)
    make_tool("hi.sh", HELP_JSON)
    pipeline(tools_dir, config_dir)
    report = doctor(tools_dir, config_dir)
    assert sorted((f.severity, f.check) for f in report.findings) == [
        ("info", "confinement"),
        ("info", "python"),
    ]


def test_a_script_not_discovered_yet_or_changed_since(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    changed = make_tool("t/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    changed.write_text(ANNOTATED.replace("A tool", "A better tool"))
    fresh = make_tool("hi.sh", HELP_JSON)
    changed.touch()
    findings = {f.path: f for f in found(doctor(tools_dir, config_dir), "not-discovered")}
    assert set(findings) == {str(changed), str(fresh)}
    assert "changed since its config was written" in findings[str(changed)].message
    assert "only running it can tell" in findings[str(fresh)].message  # doctor runs no script
    assert {f.severity for f in findings.values()} == {"warning"}
    assert findings[str(fresh)].fix.startswith("toolkiln discover && toolkiln build")
    assert not (config_dir / "tools" / "hi.json").exists()


def test_files_that_are_not_tools_get_one_hint_per_reason(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("t.sh", ANNOTATED)
    for name in ("backup.sh", "deploy.sh"):
        make_tool(name, f'#!/bin/sh\necho "usage: {name} [options] TARGET"\n')
    make_tool("lib.py", "def helper():\n    return 1\n", executable=False)
    assert not found(doctor(tools_dir, config_dir), "not-tools")  # doctor runs no script
    pipeline(tools_dir, config_dir)  # discovery asks their `--help` (confined), and remembers the answer
    [hint] = found(doctor(tools_dir, config_dir), "not-tools")
    assert hint.severity == "warning"
    assert hint.message.startswith("2 executables answer `--help` with plain text")
    assert hint.fix == "`toolkiln discover --list` says why for each file"


OPS = """\
#!/usr/bin/env python3
\"\"\"Operations.\"\"\"
import argparse

parser = argparse.ArgumentParser(description="Ops")
commands = parser.add_subparsers(dest="command")
commands.add_parser("start", help="Start it").add_argument("--name")
commands.add_parser("stop", help="Stop it").add_argument("--name")
commands.add_parser("status", help="Say how it is")
print(parser.parse_args())
"""


def test_a_script_that_fails_to_read_keeps_its_tools_and_is_never_called_stale(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    script = make_tool("ops.py", OPS)
    pipeline(tools_dir, config_dir)
    script.write_text(OPS.replace("print(parser.parse_args())", "print(parser.parse_args("))
    report = doctor(tools_dir, config_dir)
    [finding] = [f for f in report.findings if f.path == str(script)]
    assert (finding.severity, finding.check, finding.line) == ("error", "declaration", 10)
    assert finding.message.startswith("cannot be read (is not valid Python: '(' was never closed)")
    assert "'ops_start', 'ops_status', 'ops_stop' keep their configs and are served as last read" in (
        finding.message
    )
    assert finding.fix == "correct the script at line 10, then run `toolkiln discover` (its configs are kept)"
    assert not any("delete" in f.message or "delete" in f.fix for f in report.findings), report.findings
    discovered = discover_tools(tools_dir, config_dir, write=False)
    assert {t.name: t.change for t in discovered.tools} == dict.fromkeys(
        ("ops_start", "ops_status", "ops_stop"), "failed"
    )
    assert discovered.warnings == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"discovery": {"fallback": 3}}', "discovery.fallback must be a list"),
        ("{bad", "cannot be read as JSON"),
    ],
)
def test_an_invalid_server_json_names_the_file_and_the_fix(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, text: str, message: str
) -> None:
    make_tool("t/run.sh", ANNOTATED)
    pipeline(tools_dir, config_dir)
    (config_dir / "server.json").write_text(text)
    [finding] = found(doctor(tools_dir, config_dir), "discovery")
    assert (finding.severity, finding.path) == ("error", str(config_dir / "server.json"))
    assert message in finding.message
    assert finding.fix.startswith("correct the file as the message says")
    assert all(f.fix != "see the message" for f in doctor(tools_dir, config_dir).findings)


def test_a_projects_files_are_its_implementation_and_its_broken_venv_has_the_remedy(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("proj/pyproject.toml", '[project.scripts]\ngo = "go:main"\n', executable=False)
    make_tool("proj/go.py", 'def main():\n    """Go."""\n', executable=False)
    make_tool("proj/helper.sh", "#!/bin/sh\necho helper\n", executable=False)  # no run bit: the project's
    make_tool("proj/.venv/pyvenv.cfg", "home = /nowhere/bin\n", executable=False)
    (tools_dir / "proj/.venv/bin").mkdir()
    (tools_dir / "proj/.venv/bin/python").symlink_to("/nowhere/bin/python3")
    report = doctor(tools_dir, config_dir)
    assert found(report, "not-executable") == []
    [finding] = found(report, "declaration")
    assert finding.severity == "error" and "python3 -m venv --clear" in finding.message
