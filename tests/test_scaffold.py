"""`toolkiln new`: a tool rendered from its dialect's template, discovered, ready to call."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.conftest import MakeTool, child_env
from toolkiln.cli import cli
from toolkiln.files import load_tool_config, tool_config_path

RunCli = Callable[..., Result]
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

DIALECTS = [
    ("annotations", "word-count/run.sh", ["function=hello", "name=Ada"], "Hello, Ada!\n"),
    ("help-json", "word-count.sh", ["name=Ada", "times=2"], "Hello, Ada!\nHello, Ada!\n"),
    ("python", "word-count.py", ["name=Ada", "shout=true"], '"greeting": "HELLO, ADA!"'),
    pytest.param("kit", "word-count.js", ["name=Ada"], '{"greeting":"Hello, Ada!"', marks=needs_node),
]


@pytest.mark.parametrize(("dialect", "path", "arguments", "expected"), DIALECTS)
def test_new_tool_of_each_dialect_is_discovered_and_runs(
    tools_dir: Path,
    config_dir: Path,
    run_cli: RunCli,
    dialect: str,
    path: str,
    arguments: list[str],
    expected: str,
) -> None:
    created = run_cli("new", "word-count", "--dialect", dialect)
    assert created.exit_code == 0, created.output
    script = tools_dir / path
    assert os.access(script, os.X_OK)
    text = script.read_text()
    assert "word-count" in text and "{{" not in text
    config = load_tool_config(tool_config_path(config_dir, "word-count"))
    assert (config.script_config.script_path, config.script_config.dialect) == (path, dialect)
    assert f"call word-count --tools-dir {tools_dir} --config-dir {config_dir}" in created.output
    assert f"build --tools-dir {tools_dir}" not in created.output  # `new` built: the call works at once
    assert f"built {config_dir / 'tools.json'} with 1 tool" in created.output

    called = run_cli("call", "word-count", *arguments)
    assert called.exit_code == 0, called.output
    assert expected in called.output


def test_new_defaults_to_annotations_and_creates_the_tools_folder(tmp_path: Path) -> None:
    tools, config = tmp_path / "fresh" / "tools", tmp_path / "fresh" / "config"
    result = CliRunner().invoke(cli, ["new", "greet", "--tools-dir", str(tools), "--config-dir", str(config)])
    assert result.exit_code == 0, result.output
    assert (tools / "greet" / "run.sh").is_file()
    assert load_tool_config(config / "tools" / "greet.json").script_config.dialect == "annotations"


def test_new_prints_plain_commands_for_the_default_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        cli, ["new", "greet"], env={"TOOLKILN_TOOLS_DIR": None, "TOOLKILN_CONFIG_DIR": None}
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "tools" / "greet" / "run.sh").is_file()
    assert "call greet function=hello name=Ada" in result.output
    assert "--tools-dir" not in result.output
    assert "serve" in result.output and "config claude-desktop --install" in result.output


def test_new_never_overwrites_a_tool(tools_dir: Path, run_cli: RunCli) -> None:
    assert run_cli("new", "greet").exit_code == 0
    script = tools_dir / "greet" / "run.sh"
    script.write_text("#!/bin/bash\n# Tool: greet\n# Description: mine, edited\n")
    again = run_cli("new", "greet")
    assert again.exit_code == 1
    assert "already exists" in again.output and "never overwrites" in again.output
    assert "edited" in script.read_text()


@pytest.mark.parametrize("dialect", ["annotations", "python"])
def test_new_refuses_a_name_another_file_has(make_tool: MakeTool, run_cli: RunCli, dialect: str) -> None:
    make_tool("greet.sh", "#!/bin/bash\necho hi\n")
    result = run_cli("new", "greet", "--dialect", dialect)
    assert result.exit_code == 1
    assert "greet.sh already exists" in result.output


def test_new_refuses_a_name_a_tool_already_has(make_tool: MakeTool, run_cli: RunCli, tools_dir: Path) -> None:
    make_tool(  # a kit tool is named by its Name comment, not by its file
        "reports/monthly.sh",
        """\
        #!/bin/bash
        # Name: Sales Report
        # Description: A report
        # schema = { input: { month: { type: "string" } } }
        echo report
        """,
    )
    assert run_cli("discover").exit_code == 0
    result = run_cli("new", "sales-report", "--dialect", "python")
    assert result.exit_code == 1
    assert "the tool 'sales-report' already exists" in result.output
    assert "reports/monthly.sh" in result.output
    assert not (tools_dir / "sales-report.py").exists()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("utils/calc", "is not a tool name"),
        ("with space", "is not a tool name"),
        ("café", "is not a tool name"),
        ("x" * 65, "is not a tool name"),
        ("node_modules", "a folder name discovery skips"),
        ("TEMPLATE", "a folder name discovery skips"),
    ],
)
def test_new_checks_the_name(tools_dir: Path, run_cli: RunCli, name: str, message: str) -> None:
    result = run_cli("new", name)
    assert result.exit_code == 1
    assert message in result.output
    assert list(tools_dir.iterdir()) == []


@pytest.mark.parametrize("name", ["My-Tool", "my_tool", "my--tool", "tool-"])
def test_new_kit_tool_names_are_slugs(tools_dir: Path, run_cli: RunCli, name: str) -> None:
    result = run_cli("new", name, "--dialect", "kit")
    assert result.exit_code == 1
    assert "cannot name a kit tool" in result.output
    assert list(tools_dir.iterdir()) == []


def test_new_uses_another_template_folder(tmp_path: Path, tools_dir: Path, run_cli: RunCli) -> None:
    templates = tmp_path / "templates"
    (templates / "help-json").mkdir(parents=True)
    (templates / "help-json" / "tool.sh").write_text(
        "#!/bin/bash\n"
        "# {{ name }}: our house template\n"
        'if [ "$1" = "--help" ]; then\n'
        "  echo '{\"description\": \"House {{ title }}\"}'; echo '{}' >&2; exit 0\n"
        "fi\n"
        "echo house\n"
    )
    result = run_cli("new", "house-tool", "--dialect", "help-json", "--template-dir", str(templates))
    assert result.exit_code == 0, result.output
    assert (
        (tools_dir / "house-tool.sh")
        .read_text()
        .startswith("#!/bin/bash\n# house-tool: our house template\n")
    )
    assert run_cli("build").exit_code == 0
    listed = json.loads(run_cli("list", "--json").output)
    assert listed[0]["description"] == "House House tool"

    missing = run_cli("new", "other", "--template-dir", str(tmp_path / "nowhere"))
    assert missing.exit_code == 1
    assert "cannot read the template" in missing.output


def test_a_projects_own_template_folder_wins_for_the_dialects_it_has(
    tmp_path: Path, tools_dir: Path, run_cli: RunCli
) -> None:
    own = tmp_path / "TEMPLATE" / "annotations"  # beside the tools folder
    own.mkdir(parents=True)
    (own / "run.sh").write_text(
        "#!/bin/bash\n# Tool: {{ name }}\n# Description: Our house tool {{ name }}\necho house\n"
    )
    result = run_cli("new", "house")
    assert result.exit_code == 0, result.output
    assert f"from {own / 'run.sh'}" in result.output
    assert (tools_dir / "house" / "run.sh").read_text().startswith("#!/bin/bash\n# Tool: house\n")

    # a dialect the project has no template for: toolkiln's own
    shipped = run_cli("new", "greeter", "--dialect", "help-json")
    assert shipped.exit_code == 0, shipped.output
    assert "from " not in shipped.output.splitlines()[0]
    assert "help-json dialect" in (tools_dir / "greeter.sh").read_text()


def test_new_reports_a_template_that_does_not_render(
    tmp_path: Path, tools_dir: Path, run_cli: RunCli
) -> None:
    templates = tmp_path / "templates"
    (templates / "annotations").mkdir(parents=True)
    (templates / "annotations" / "run.sh").write_text("#!/bin/bash\n# Tool: {{ nmae }}\n")
    result = run_cli("new", "typo", "--template-dir", str(templates))
    assert result.exit_code == 1
    assert "annotations/run.sh: 'nmae' is undefined" in result.output
    assert not (tools_dir / "typo").exists()


def test_new_as_a_real_process_then_build_and_call(tmp_path: Path) -> None:
    folders = ["--tools-dir", str(tmp_path / "tools"), "--config-dir", str(tmp_path / "config")]

    def toolkiln(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "toolkiln", *args]
        return subprocess.run(command, capture_output=True, text=True, env=child_env(), timeout=60)

    created = toolkiln("new", "greet", "--dialect", "help-json", *folders)
    assert created.returncode == 0, created.stderr
    assert "created" in created.stdout and created.stderr == ""
    assert toolkiln("build", *folders).returncode == 0
    called = toolkiln("call", "greet", *folders, "name=Ada")
    assert (called.returncode, called.stdout) == (0, "Hello, Ada!\n")
