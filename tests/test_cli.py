"""The `toolkiln` command line: in-process with CliRunner, plus real processes for
what only a real process shows (the entry point, the serve banner, start_server.sh)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from mcp import Client, StdioServerParameters

from tests.conftest import MakeTool, child_env
from tests.terminal import run_on_terminal, run_piped
from toolkiln import __version__

REPO = Path(__file__).resolve().parent.parent
RunCli = Callable[..., Result]

GREET = """\
#!/bin/bash
if [ "$1" = "--help" ]; then
  echo '{"description": "Greet someone"}'
  echo '{"name": {"description": "Who", "required": true, "value_type": "string"},
         "times": {"description": "How often", "value_type": "integer", "default_value": 1}}' >&2
  exit 0
fi
for _ in $(seq "$times"); do echo "Hello, $name!"; done
"""

FIND = """\
#!/bin/bash
# Tool: find
# Description: Pretend to find something
# @param what: What to look for (type: string, required: true)
echo "no $what here" >&2
exit 4
"""


@pytest.fixture
def project(make_tool: MakeTool) -> None:
    make_tool("greet.sh", GREET)
    make_tool("find/run.sh", FIND)


@pytest.mark.usefixtures("project")
def test_discover_build_list_call(run_cli: RunCli, config_dir: Path) -> None:
    discovered = run_cli("discover")
    assert discovered.exit_code == 0
    assert "2 created" in discovered.output
    assert sorted(p.name for p in (config_dir / "tools").iterdir()) == ["find.json", "greet.json"]

    built = run_cli("build")
    assert built.exit_code == 0
    assert f"built {config_dir / 'tools.json'} with 2 tools" in built.output

    listed = run_cli("list")
    assert "greet" in listed.output and "name:string times?:integer" in listed.output

    called = run_cli("call", "greet", "name=Ada", "times=2")
    assert called.exit_code == 0
    assert called.output == "Hello, Ada!\nHello, Ada!\n"


@pytest.mark.usefixtures("project")
def test_call_exits_non_zero_on_a_tool_error(run_cli: RunCli) -> None:
    run_cli("discover")
    run_cli("build")
    failed = run_cli("call", "find", "what=keys")
    assert failed.exit_code == 1
    assert "exit code 4 (not found)" in failed.output
    assert "no keys here" in failed.output

    invalid = run_cli("call", "greet", "times=two")
    assert invalid.exit_code == 1
    assert "'name' is required" in invalid.output
    assert 'times: "two" must be of type integer' in invalid.output


@pytest.mark.usefixtures("project")
def test_call_json_output_and_json_arguments(run_cli: RunCli) -> None:
    run_cli("discover")
    run_cli("build")
    result = run_cli("call", "greet", "--args", '{"name": "Grace"}', "--json")
    assert result.exit_code == 0
    payload = json.loads(result.output)
    assert payload["text"] == "Hello, Grace!"
    assert payload["is_error"] is False
    assert payload["exit_code"] == 0


def test_an_error_quoting_a_files_words_cannot_command_the_terminal(
    run_cli: RunCli, config_dir: Path
) -> None:
    """A key of a config file (a cloned project's, a folder's) that holds escape sequences
    is quoted in the error as visible text, not obeyed (title, screen clear)."""
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "tools.json").write_text(
        json.dumps({"tools_dir": "t", "tools": [], "\x1b]0;owned\x07\x1b[2J": 1})
    )
    result = run_cli("list")
    assert result.exit_code == 1
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "\\x1b]0;owned\\x07\\x1b[2J: unknown key" in result.output


@pytest.mark.usefixtures("project")
def test_call_of_an_unknown_tool_is_a_clear_error(run_cli: RunCli) -> None:
    run_cli("discover")
    run_cli("build")
    result = run_cli("call", "nope")
    assert result.exit_code == 1
    assert "unknown tool 'nope': `toolkiln list` shows what" in result.output and "(2 tools)" in result.output


@pytest.mark.usefixtures("project")
def test_discover_list_writes_nothing_and_shows_status(run_cli: RunCli, config_dir: Path) -> None:
    result = run_cli("discover", "--list")
    assert result.exit_code == 0
    assert not config_dir.exists()
    lines = [line for line in result.output.splitlines() if not line.startswith("warning:")]
    assert lines[0].split() == ["CONFIG", "SCRIPT", "TOOL", "PATH", "DESCRIPTION"]
    assert "warning: greet.sh: not probed: this command runs no script" in result.output

    run_cli("discover")
    (config_dir / "tools" / "ghost.json").write_text((config_dir / "tools" / "find.json").read_text())
    ghost = json.loads((config_dir / "tools" / "ghost.json").read_text())
    ghost["script_config"].update(name="ghost", script_path="ghost/run.sh")
    (config_dir / "tools" / "ghost.json").write_text(json.dumps(ghost))
    listed = run_cli("discover", "--list").output.splitlines()
    assert any(line.split()[:4] == ["yes", "missing", "ghost", "ghost/run.sh"] for line in listed)
    assert any(line.split()[:3] == ["yes", "found", "greet"] for line in listed)


def test_build_without_configs_is_a_clear_error(run_cli: RunCli) -> None:
    result = run_cli("build")
    assert result.exit_code == 1
    assert "run `toolkiln discover` first" in result.output


def test_list_without_a_build_is_a_clear_error(run_cli: RunCli) -> None:
    result = run_cli("list")
    assert result.exit_code == 1
    assert "run `toolkiln discover` and `toolkiln build` first" in result.output


@pytest.mark.usefixtures("project")
def test_folders_come_from_environment_variables(tools_dir: Path, config_dir: Path) -> None:
    env = {**child_env(), "TOOLKILN_TOOLS_DIR": str(tools_dir), "TOOLKILN_CONFIG_DIR": str(config_dir)}
    for command in (["discover"], ["build"]):
        subprocess.run([sys.executable, "-m", "toolkiln", *command], env=env, check=True, capture_output=True)
    called = subprocess.run(
        [sys.executable, "-m", "toolkiln", "call", "greet", "name=env"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert called.returncode == 0
    assert called.stdout == "Hello, env!\n"


def test_version_from_the_real_entry_point() -> None:
    result = subprocess.run([sys.executable, "-m", "toolkiln", "--version"], capture_output=True, text=True)
    assert result.returncode == 0
    assert result.stdout.startswith("toolkiln, version ")


@pytest.mark.usefixtures("project")
def test_serve_prints_a_banner_on_stderr_and_nothing_on_stdout(tools_dir: Path, config_dir: Path) -> None:
    args = ["--tools-dir", str(tools_dir), "--config-dir", str(config_dir)]
    # stdin at EOF: the server starts, sees its client gone, and stops.
    # stdin at EOF: the server starts, sees its client gone, and stops. On a terminal, the
    # whole banner: the client snippet.
    seen = run_on_terminal(["serve", "--discover", *args], cwd=tools_dir.parent, stdout_piped=True)
    assert seen.returncode == 0, seen.terminal
    assert seen.stdout == ""
    assert "serving 2 tools" in seen.terminal
    snippet = json.loads(seen.terminal[seen.terminal.index("{") : seen.terminal.rindex("}") + 1])
    entry = snippet["mcpServers"]["toolkiln"]
    assert entry["args"][-4:] == ["--tools-dir", str(tools_dir), "--config-dir", str(config_dir)]


@pytest.mark.usefixtures("project")
def test_the_banner_is_one_line_when_stderr_is_not_a_terminal(tools_dir: Path, config_dir: Path) -> None:
    """An MCP client spawns the server and logs each of its stderr lines, on every start."""
    args = ["--tools-dir", str(tools_dir), "--config-dir", str(config_dir)]
    for step in ("discover", "build"):
        assert run_piped([step, *args], cwd=tools_dir.parent).returncode == 0
    result = run_piped(["serve", *args], cwd=tools_dir.parent)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    banner = [line for line in result.stderr.splitlines() if "serving" in line]
    assert banner == [
        f"toolkiln {__version__}: serving 2 tools from {tools_dir} over stdio "
        "(`toolkiln config CLIENT` prints a client's entry)."
    ], result.stderr
    assert "{" not in result.stderr


@pytest.mark.usefixtures("project")
def test_the_banner_names_the_tools_folder_the_config_was_built_from(
    tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    toolkiln = [sys.executable, "-m", "toolkiln"]
    folders = ["--tools-dir", str(tools_dir), "--config-dir", str(config_dir)]
    for step in ("discover", "build"):
        subprocess.run([*toolkiln, step, *folders], check=True, capture_output=True, env=child_env())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # only --config-dir, from a folder with no tools
    seen = run_on_terminal(["serve", "--config-dir", str(config_dir)], cwd=elsewhere, stdout_piped=True)
    assert seen.returncode == 0, seen.terminal
    snippet = json.loads(seen.terminal[seen.terminal.index("{") : seen.terminal.rindex("}") + 1])
    assert snippet["mcpServers"]["toolkiln"]["args"][-4:] == folders


@pytest.mark.anyio
@pytest.mark.usefixtures("project")
async def test_start_server_script_discovers_and_serves(tools_dir: Path, config_dir: Path) -> None:
    env = {**child_env(), "TOOLKILN_TOOLS_DIR": str(tools_dir), "TOOLKILN_CONFIG_DIR": str(config_dir)}
    params = StdioServerParameters(command=str(REPO / "start_server.sh"), args=["--discover"], env=env)
    async with Client(params, mode="legacy") as client:
        names = sorted(tool.name for tool in (await client.list_tools()).tools)
        result = await client.call_tool("greet", {"name": "script"})
    assert names == ["find", "greet"]
    assert result.content[0].text == "Hello, script!"  # type: ignore[union-attr]


def test_discover_build_list_call_never_import_the_sdk(
    tools_dir: Path, config_dir: Path, make_tool: MakeTool
) -> None:
    make_tool("greet.sh", GREET)
    code = f"""
import sys
from toolkiln.cli import cli
for command in (["discover"], ["build"], ["list"], ["call", "greet", "name=x"]):
    try:
        cli([*command, "--tools-dir", {str(tools_dir)!r}, "--config-dir", {str(config_dir)!r}])
    except SystemExit as done:
        assert done.code in (0, None), (command, done.code)
print("mcp" in sys.modules, file=sys.stderr)
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env())
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip().splitlines()[-1] == "False"


def test_an_unchanged_discover_imports_neither_pydantic_nor_anyio(
    tools_dir: Path, config_dir: Path, make_tool: MakeTool
) -> None:
    """Those two are ~0.1 s of a whole `discover` run: only a script that has to be read needs
    them; the clients package (the CLIENT choices), sqlite3 and socket only their commands."""
    make_tool("greet.sh", GREET)
    make_tool(
        "adder/run.sh", "#!/bin/sh\n# @description Adds\n# @param a: a number (type: integer)\necho $a\n"
    )
    for folder, file, text in (
        ("prompts", "review.md", "Review {{ code }}\n"),
        ("resources", "notes.txt", "x"),
    ):
        (tools_dir.parent / folder).mkdir(exist_ok=True)
        (tools_dir.parent / folder / file).write_text(text)
    folders = ["--tools-dir", str(tools_dir), "--config-dir", str(config_dir)]
    subprocess.run([sys.executable, "-m", "toolkiln", "discover", *folders], check=True, env=child_env())
    os.utime(tools_dir / "greet.sh", ns=(0, 10**18))  # a fresh checkout: same bytes, new mtime
    code = f"""
import sys
from toolkiln.cli import cli
try:
    cli(["discover", *{folders!r}])
except SystemExit as done:
    assert done.code in (0, None), done.code
unwanted = ("pydantic", "anyio", "toolkiln.clients", "toolkiln.model", "sqlite3", "socket")
unwanted += ("toolkiln.cli.serving",)
print(sorted(m for m in unwanted if m in sys.modules), file=sys.stderr)
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env())
    assert result.returncode == 0, result.stderr
    assert "2 unchanged" in result.stdout and "1 prompt, 1 resource" in result.stdout
    assert result.stderr.strip().splitlines()[-1] == "[]"


def test_each_command_is_loaded_from_the_module_the_table_names() -> None:
    """`toolkiln discover` loads the module of its command, not the sixteen commands' (app.py)."""
    code = """
import importlib, pkgutil
import toolkiln.cli as package
from toolkiln.cli.app import COMMAND_MODULES, cli
for found in pkgutil.iter_modules(package.__path__):
    importlib.import_module(f"toolkiln.cli.{found.name}")
homes = {name: command.callback.__module__ for name, command in cli.commands.items()}
print(homes == {name: f"toolkiln.cli.{module}" for name, module in COMMAND_MODULES.items()})
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env())
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


@pytest.mark.parametrize(
    "module",
    [
        *("toolkiln.discover", "toolkiln.build.merge", "toolkiln.runner", "toolkiln.schema"),  # the stages
        *("toolkiln.doctor", "toolkiln.clients", "toolkiln.scaffold"),  # the authoring libraries
    ],
)
def test_stages_and_libraries_import_neither_mcp_nor_click(module: str) -> None:
    code = f"import sys, {module}; print(sorted(m for m in ('mcp', 'click') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env())
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_client_choices_are_read_from_the_clients_package(run_cli: RunCli) -> None:
    from toolkiln.clients import CLIENT_NAMES, LAUNCHERS

    refused = run_cli("config", "no-such-client")
    assert refused.exit_code == 2
    assert all(f"'{name}'" in refused.output for name in CLIENT_NAMES)
    launcher = run_cli("config", "json", "--launcher", "bogus")
    assert launcher.exit_code == 2 and all(f"'{name}'" in launcher.output for name in LAUNCHERS)
    assert run_cli("config", "json", "--launcher", "path").exit_code == 0


def test_start_server_script_is_valid_bash() -> None:
    assert os.access(REPO / "start_server.sh", os.X_OK)
    subprocess.run(["bash", "-n", str(REPO / "start_server.sh")], check=True)


def test_the_server_imports_neither_the_discovery_stage_nor_jinja2() -> None:
    unwanted = "('toolkiln.discover', 'jinja2')"
    code = f"import sys, toolkiln.serve; print(sorted(m for m in {unwanted} if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env())
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


LONG = """\
#!/bin/bash
# Tool: wordy
# Description: {description}
# @param text: the text (type: string, required: true)
echo "$text"
""".format(
    description="A description far longer than any terminal is wide, which a listing on a terminal "
    "cuts with an ellipsis rather than wrapping onto the next line"
)


def test_list_fits_the_terminal_and_is_whole_when_piped_or_wide(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("wordy.sh", LONG)
    args = ["--tools-dir", str(tools_dir), "--config-dir", str(config_dir)]
    for step in ("discover", "build"):
        assert run_piped([step, *args], cwd=tools_dir.parent).returncode == 0
    description = LONG.splitlines()[2].removeprefix("# Description: ")
    seen = run_on_terminal(["list", *args], cwd=tools_dir.parent, columns=60)
    lines = seen.terminal.split("\n\n")[0].splitlines()  # the table (the summary names a path)
    assert all(len(line) <= 60 for line in lines), lines
    row = next(line for line in lines if line.startswith("wordy"))
    assert len(row) == 60 and row.endswith("…") and description[:20] in row
    narrower = run_on_terminal(["list", *args], cwd=tools_dir.parent, columns=200, env={"COLUMNS": "50"})
    assert all(len(line) <= 50 for line in narrower.terminal.split("\n\n")[0].splitlines()), "COLUMNS wins"
    wide = run_on_terminal(["list", "--wide", *args], cwd=tools_dir.parent, columns=60)
    assert description in wide.terminal
    piped = run_piped(["list", *args], cwd=tools_dir.parent)
    assert description in piped.stdout
