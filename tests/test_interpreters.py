"""A Python command-line script runs with the interpreter its `#!` line names (a virtual
environment's python, `uv run --script`), not toolkiln's own Python, which lacks the
packages the script's environment holds; a named interpreter that is missing is reported
by discovery with the remedy, not run with another Python."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.terminal import run_piped
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.interpreters import named_python, python_command

GREET = """\
#!{python}
\"\"\"Greet someone, in the words of a package only the script's environment holds.\"\"\"
import argparse

import only_in_this_venv

parser = argparse.ArgumentParser(description="Greet someone.")
parser.add_argument("name", help="who to greet")
args = parser.parse_args()
print(only_in_this_venv.greet(args.name))
"""


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment holding a module toolkiln's own Python does not have."""
    root = tmp_path_factory.mktemp("venv") / "env"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120)
    purelib = subprocess.run(
        [str(root / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert purelib != sysconfig.get_paths()["purelib"]
    (Path(purelib) / "only_in_this_venv.py").write_text(
        "def greet(name):\n    return f'hello {name} from the venv'\n"
    )
    return root


def test_a_script_whose_shebang_names_a_venv_runs_with_that_venv(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, venv: Path
) -> None:
    make_tool("greet.py", GREET.format(python=venv / "bin" / "python"))
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors and [tool.name for tool in report.tools] == ["greet"], report.not_tools
    assert not report.warnings  # the venv has what the script imports
    build_catalog(config_dir, tools_dir)
    result = run_piped(["call", "greet", "name=Ada"], cwd=tools_dir.parent)
    assert "ModuleNotFoundError" not in result.stdout + result.stderr
    assert result.returncode == 0, result.stderr
    assert "hello Ada from the venv" in result.stdout


def test_a_script_whose_shebang_names_a_missing_venv_is_reported_with_the_remedy(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    gone = tmp_path / "gone-venv"
    make_tool("greet.py", GREET.format(python=gone / "bin" / "python"))
    report = discover_tools(tools_dir, config_dir)
    assert not report.tools and not report.errors
    [verdict] = report.not_tools
    assert verdict.kind == "runtime-missing"
    assert str(gone / "bin" / "python") in verdict.reason
    assert f"python3 -m venv {gone}" in verdict.reason


@pytest.mark.parametrize(
    ("shebang", "named"),
    [
        ("#!/usr/bin/env python3", None),  # whichever python3 the PATH has: toolkiln's own runs it
        ("#!/bin/bash", None),
        ("#!/opt/env/bin/python3.12 -u", ["/opt/env/bin/python3.12", "-u"]),
    ],
)
def test_which_shebangs_name_a_python_in_particular(
    tmp_path: Path, shebang: str, named: list[str] | None
) -> None:
    script = tmp_path / "s.py"
    script.write_text(f"{shebang}\nprint(1)\n")
    assert named_python(script) == named


def test_a_uv_shebang_runs_the_script_with_uv(tmp_path: Path) -> None:
    script = tmp_path / "s.py"
    script.write_text("#!/usr/bin/env -S uv run --script\nprint(1)\n")
    command = python_command(script)
    assert Path(command[0]).name == "uv" and command[1:] == ["run", "--quiet", "--script"]


@pytest.mark.parametrize("in_venv", [True, False], ids=["venv", "toolkiln-python"])
def test_imports_the_running_python_cannot_satisfy_are_a_warning_with_the_remedy(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, venv: Path, in_venv: bool
) -> None:
    python = venv / "bin" / "python" if in_venv else Path("/usr/bin/env python3")
    module = "not_installed_anywhere" if in_venv else "only_in_this_venv"
    make_tool("greet.py", GREET.format(python=python).replace("only_in_this_venv", module))
    report = discover_tools(tools_dir, config_dir)
    assert [tool.name for tool in report.tools] == ["greet"]  # served, but said
    [warning] = [w for w in report.warnings if w.path == "greet.py"]
    running = str(venv / "bin" / "python") if in_venv else sys.executable
    assert f"imports {module}, which" in warning.reason and f"{running} -m pip install" in warning.reason


def test_imports_inside_try_or_functions_are_not_checked(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    body = GREET.format(python="/usr/bin/env python3").replace(
        "import only_in_this_venv\n", "try:\n    import only_in_this_venv\nexcept ImportError:\n    pass\n"
    )
    make_tool("greet.py", body)
    report = discover_tools(tools_dir, config_dir)
    assert [tool.name for tool in report.tools] == ["greet"] and not report.warnings


def test_a_call_whose_venv_has_gone_since_discovery_fails_with_the_remedy_not_another_python(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    gone = tmp_path / "short-lived"
    subprocess.run(
        [getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(gone)],
        check=True,
        timeout=120,
    )
    make_tool(
        "greet.py", GREET.format(python=gone / "bin" / "python").replace("import only_in_this_venv\n", "")
    )
    assert [tool.name for tool in discover_tools(tools_dir, config_dir).tools] == ["greet"]
    build_catalog(config_dir, tools_dir)
    shutil.rmtree(gone)
    result = run_piped(["call", "greet", "name=Ada"], cwd=tools_dir.parent)
    assert result.returncode != 0
    assert "does not exist here" in result.stderr + result.stdout
    assert f"python3 -m venv {gone}" in result.stderr + result.stdout


def test_a_node_script_whose_shebang_interpreter_is_missing_is_reported(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    body = (
        "#!/usr/bin/env no-such-node-runtime\n"
        "const { program } = require('commander');\n"
        "program.description('Greet.').argument('<name>', 'who').action((name) => console.log(name));\n"
        "program.parse();\n"
    )
    make_tool("greet.js", body)
    report = discover_tools(tools_dir, config_dir)
    assert not report.tools and not report.errors
    [verdict] = report.not_tools
    assert verdict.kind == "runtime-missing" and "no-such-node-runtime" in verdict.reason


def test_a_script_without_the_exec_bit_runs_with_the_interpreter_its_shebang_names_by_path(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    # A particular node (`#!/opt/node-18/bin/node`): here a stand-in that says it ran.
    node = tmp_path / "node-18" / "bin" / "node"
    node.parent.mkdir(parents=True)
    node.write_text('#!/bin/sh\necho "node-18 ran $1 with: $2 $3"\n')
    node.chmod(0o755)
    body = (
        f"#!{node}\n"
        "const { program } = require('commander');\n"
        "program.description('Greet.').option('--name <name>', 'who').parse();\n"
    )
    make_tool("greet.js", body, executable=False)
    assert [tool.name for tool in discover_tools(tools_dir, config_dir).tools] == ["greet"]
    build_catalog(config_dir, tools_dir)
    result = run_piped(["call", "greet", "name=Ada"], cwd=tools_dir.parent)
    assert result.returncode == 0, result.stderr
    assert f"node-18 ran {tools_dir / 'greet.js'} with: --name=Ada" in result.stdout
