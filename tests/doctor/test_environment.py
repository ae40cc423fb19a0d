"""doctor's checks of what tools need from their environment."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.doctor.helpers import doctor, found, pipeline


def test_parameters_that_set_risky_environment_variables(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    script = make_tool(
        "fetch/run.sh",
        """\
        #!/bin/bash
        # Tool: fetch
        # Description: Fetch a URL
        # @param url: The URL (type: string, required: true)
        # @param TERM: The terminal (type: string, default: dumb)
        # @param path: A lower-case path is harmless (type: string, default: x)
        curl "$url"
        """,
    )
    pipeline(tools_dir, config_dir)
    findings = {f.line: f for f in found(doctor(tools_dir, config_dir), "env-shadowing")}
    assert set(findings) == {5}
    assert findings[5].severity == "warning" and findings[5].path == str(script)
    assert "environment variable TERM" in findings[5].message
    assert "rename the parameter" in findings[5].fix


def test_missing_packages_of_a_requirements_file(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("stats/run.sh", "#!/bin/bash\n# Tool: stats\n# Description: d\necho\n")
    requirements = make_tool(
        "stats/requirements.txt",
        "# what stats.py imports\npydantic>=2\ntoolkiln-no-such-package==1.0\n",
        executable=False,
    )
    pipeline(tools_dir, config_dir)
    [finding] = found(doctor(tools_dir, config_dir), "missing-requirement")
    assert (finding.severity, finding.path, finding.line) == ("warning", str(requirements), 3)
    assert f"toolkiln-no-such-package is not installed for {sys.executable}" == finding.message
    assert finding.fix == f"{sys.executable} -m pip install -r {requirements}"


def test_the_python_that_runs_python_tools_is_named(tools_dir: Path, config_dir: Path) -> None:
    [finding] = found(doctor(tools_dir, config_dir), "python")
    assert (finding.severity, finding.path) == ("info", sys.executable)
    assert f"Python {sys.version.split()[0]}" in finding.message


def test_confinement_says_whether_bubblewrap_works_and_which_tools_need_it(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = make_tool(
        "strict/run.sh", "#!/bin/bash\n# Tool: strict\n# Description: Must be confined\necho hi\n"
    )
    pipeline(tools_dir, config_dir)
    config_file = config_dir / "tools" / "strict.json"
    config = json.loads(config_file.read_text())
    config["script_config"]["confinement"] = {"mode": "required"}
    config_file.write_text(json.dumps(config))
    monkeypatch.setenv("TOOLKILN_BWRAP", "")
    findings = {finding.severity: finding for finding in found(doctor(tools_dir, config_dir), "confinement")}
    assert set(findings) == {"warning", "error"}
    assert "bubblewrap (bwrap) is not installed" in findings["warning"].message
    assert findings["error"].path == str(script) and "must run confined" in findings["error"].message
