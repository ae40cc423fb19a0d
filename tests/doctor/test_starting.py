"""doctor's judgement of whether each served tool can start, as the runner starts it:
the run bit only where the script runs by itself (or discovery needs it), and the
program that runs it (its `#!` line, `env -S`, a virtual environment's Python)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from tests.conftest import MakeTool
from tests.doctor.helpers import doctor, found, pipeline

RunCli = Callable[..., Result]

KIT = """\
#!/usr/bin/env node
// Name: Deploy
// Description: Deploy the site
schema = { input: { target: { type: 'string' } } }
console.log('deployed');
"""
PLAIN = "#!/bin/sh\necho sunny\n"
FETCH = """\
\"\"\"Fetch a page.\"\"\"
import argparse

parser = argparse.ArgumentParser(description="Fetch a page")
parser.add_argument("--url", help="The page")
print(parser.parse_args().url)
"""


def opt_in(config_dir: Path, *patterns: str) -> None:
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "server.json").write_text(json.dumps({"discovery": {"fallback": list(patterns)}}))


def test_a_node_tool_without_the_run_bit_still_runs_with_node(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, run_cli: RunCli
) -> None:
    deploy = make_tool("deploy.js", KIT)
    pipeline(tools_dir, config_dir)
    deploy.chmod(0o644)  # chmod -x deploy.js: the runner starts it as `node deploy.js`
    report = doctor(tools_dir, config_dir)
    assert found(report, "not-executable") == [] and not report.has_errors, report.findings
    assert run_cli("call", "deploy").output == "deployed\n"


def test_a_fallback_tool_without_the_run_bit_is_a_fixable_error(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, run_cli: RunCli
) -> None:
    weather = make_tool("bin/weather", PLAIN)
    opt_in(config_dir, "bin/")
    pipeline(tools_dir, config_dir)
    weather.chmod(0o644)  # it runs by itself: without the bit, `Permission denied`
    [finding] = found(doctor(tools_dir, config_dir), "not-executable")
    assert (finding.severity, finding.fixable, finding.path) == ("error", True, str(weather))
    assert "cannot start" in finding.message and "'bin__weather'" in finding.message
    fixed = run_cli("doctor", "--fix")
    assert f"fixed: chmod +x {weather}" in fixed.output, fixed.output
    assert os.access(weather, os.X_OK)
    assert run_cli("call", "bin__weather").output == "sunny\n"


def test_the_interpreter_of_every_served_tool_is_checked(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    ruby = make_tool("bin/report", PLAIN)
    split = make_tool("bin/split", PLAIN)
    venv = make_tool("fetch.py", FETCH, executable=False)
    opt_in(config_dir, "bin/")
    pipeline(tools_dir, config_dir)
    ruby.write_text("#!/usr/bin/env toolkiln-no-such-ruby\nputs 'hi'\n")
    split.write_text("#!/usr/bin/env -S toolkiln-no-such-uv run --script\nprint(1)\n")
    venv.write_text(f"#!{tools_dir}/.venv/bin/python\n" + venv.read_text())
    findings = {f.path: f for f in found(doctor(tools_dir, config_dir), "interpreter")}
    assert set(findings) == {str(ruby), str(split), str(venv)}
    assert "toolkiln-no-such-ruby, which is not installed" in findings[str(ruby)].message
    assert "toolkiln-no-such-uv, which is not installed" in findings[str(split)].message
    assert f"{tools_dir}/.venv/bin/python, which does not exist here" in findings[str(venv)].message
    assert "python3 -m venv" in findings[str(venv)].fix
    assert {f.severity for f in findings.values()} == {"error"}


def test_a_script_discovery_reads_only_when_executable_needs_the_bit(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    script = make_tool("words.sh", "#!/bin/bash\n# Tool: words\n# Description: d\necho hi\n")
    pipeline(tools_dir, config_dir)
    script.chmod(0o644)  # `bash words.sh` runs, but the next discovery leaves it out
    [finding] = found(doctor(tools_dir, config_dir), "not-executable")
    assert (finding.severity, finding.fixable) == ("error", True)
    assert finding.message == (
        "is not executable: `bash words.sh` runs the tool 'words' for now, but discovery reads a "
        "script's `# Tool:` header only when it is executable, so the next `toolkiln discover` leaves "
        "the tool out"
    )


def test_a_script_run_by_another_program_than_its_shebang_says_is_a_warning(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    deploy = make_tool("deploy.js", KIT.replace("env node", "env -S node --no-warnings"))
    pipeline(tools_dir, config_dir)
    assert found(doctor(tools_dir, config_dir), "not-executable") == []
    deploy.write_text(KIT.replace("env node", "env bun"))
    deploy.chmod(0o644)
    [finding] = found(doctor(tools_dir, config_dir), "not-executable")
    assert (finding.severity, finding.fixable) == ("warning", True)
    assert "the tool 'deploy' runs with node, not with bun as its #! line says" in finding.message
